// The account's saved recipes, as the server keeps them (docs/api.md §13): open one in the builder,
// rename, export as JSON, delete, and import a JSON file as a new recipe.
import { type QuireBrowser, QuireError, type Recipe } from '@quire/client/browser';
import { useState } from 'preact/hooks';
import { nameMistake, type RecipeSteps } from './recipe-steps.js';

interface Props {
  client: QuireBrowser;
  recipes: Recipe[];
  onOpen: (recipe: Recipe) => void;
  /** A recipe was imported (`created`), renamed (both) or deleted (`removed`, an id). */
  onChanged: (message: string, change: { created?: Recipe; removed?: string }) => void;
  /** An imported file the server refused, handed to the builder to fix and save. */
  onRefusedImport: (draft: { name: string; steps: RecipeSteps }, error: QuireError) => void;
}

/** The file `Export` writes and `Import` reads: a recipe's name and steps, as POST /recipes takes them. */
export function recipeFile(recipe: { name: string; steps: RecipeSteps }): Blob {
  const body = { name: recipe.name, steps: recipe.steps };
  return new Blob([`${JSON.stringify(body, null, 2)}\n`], { type: 'application/json' });
}

function saveAs(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const message = (error: unknown) =>
  error instanceof QuireError ? `${error.title}: ${error.detail}` : String(error);

export function RecipeList({ client, recipes, onOpen, onChanged, onRefusedImport }: Props) {
  const [renaming, setRenaming] = useState<string | null>(null);
  const [newName, setNewName] = useState('');
  const [renameError, setRenameError] = useState('');
  const [failure, setFailure] = useState('');

  // The API has no rename: the newest steps are saved under the new name (version 1), then the old
  // recipe goes with its versions. Jobs that ran it keep their `recipe` member.
  async function rename(event: Event, recipe: Recipe) {
    event.preventDefault();
    const mistake = nameMistake(newName);
    setRenameError(mistake ?? '');
    if (mistake) return;
    try {
      const renamed = await client.recipes.create({ name: newName, steps: recipe.steps as never });
      await client.recipes.delete(recipe.id);
      setRenaming(null);
      onChanged(`Renamed “${recipe.name}” to “${renamed.name}”.`, { created: renamed, removed: recipe.id });
    } catch (error) {
      setRenameError(message(error));
    }
  }

  async function importFile(input: HTMLInputElement) {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    setFailure('');
    let draft: { name: string; steps: RecipeSteps };
    try {
      draft = JSON.parse(await file.text()) as typeof draft;
      if (typeof draft.name !== 'string' || !Array.isArray(draft.steps)) throw new Error('no name or steps');
    } catch (error) {
      setFailure(`${file.name} is not a recipe: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    try {
      const created = await client.recipes.create({ name: draft.name, steps: draft.steps as never });
      onChanged(`Imported “${created.name}”.`, { created });
    } catch (error) {
      if (error instanceof QuireError) onRefusedImport(draft, error);
      else setFailure(message(error));
    }
  }

  return (
    <div class="recipe-list">
      <h2 id="saved-title">Saved recipes</h2>
      {recipes.length === 0 && <p class="muted">None yet: build one below and save it.</p>}
      {recipes.length > 0 && (
        <ul aria-labelledby="saved-title">
          {recipes.map((r) => (
            <li key={r.id}>
              <span class="name">
                {r.name} <span class="muted">v{r.version}</span>
              </span>
              <span class="tools-row">
                <button type="button" onClick={() => onOpen(r)}>
                  Open {r.name}
                </button>
                <button
                  type="button"
                  aria-expanded={renaming === r.id}
                  onClick={() => {
                    setRenaming(renaming === r.id ? null : r.id);
                    setNewName(r.name);
                    setRenameError('');
                  }}
                >
                  Rename<span class="sr"> {r.name}</span>
                </button>
                <button type="button" onClick={() => saveAs(recipeFile(r), `${r.name}.json`)}>
                  Export<span class="sr"> {r.name}</span>
                </button>
                <button
                  type="button"
                  onClick={() =>
                    client.recipes.delete(r.id).then(
                      () => onChanged(`Deleted “${r.name}”.`, { removed: r.id }),
                      (error: unknown) => setFailure(message(error)),
                    )
                  }
                >
                  Delete<span class="sr"> {r.name}</span>
                </button>
              </span>
              {renaming === r.id && (
                <form class="inline" onSubmit={(e) => rename(e, r)} noValidate>
                  <label for="rename-input">New name for {r.name}</label>
                  <input
                    id="rename-input"
                    value={newName}
                    aria-invalid={renameError ? 'true' : undefined}
                    aria-describedby={renameError ? 'rename-error' : undefined}
                    onInput={(e) => setNewName((e.target as HTMLInputElement).value)}
                  />
                  {renameError && (
                    <p id="rename-error" class="error" role="alert">
                      {renameError}
                    </p>
                  )}
                  <button type="submit">Save the new name</button>
                </form>
              )}
            </li>
          ))}
        </ul>
      )}
      <label for="recipe-import">Import a recipe (JSON)</label>
      <input
        id="recipe-import"
        type="file"
        accept="application/json,.json"
        onChange={(e) => importFile(e.target as HTMLInputElement)}
      />
      {failure && (
        <p class="error" role="alert">
          {failure}
        </p>
      )}
    </div>
  );
}
