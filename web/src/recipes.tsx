// The recipe builder: a chain of steps from the catalogue, each with its generated form, saved on the
// server as a versioned recipe (docs/api.md §13) and run on one file (one chained job) or on several (a
// batch, downloaded as one ZIP). A saved recipe runs by its reference, so the jobs record which version
// ran; nothing of a recipe or a document is kept in browser storage.
import { type QuireBrowser, QuireError, type Recipe, type ToolList } from '@quire/client/browser';
import { useEffect, useState } from 'preact/hooks';
import { DropZone, type Picked } from './drop-zone.js';
import { RecipeList } from './recipe-list.js';
import {
  type BuilderErrors,
  builderErrors,
  nameMistake,
  type RecipeSteps,
  sameSteps,
} from './recipe-steps.js';
import { optionsFrom, type Schema, SchemaForm, type Values } from './schema-form.js';

type Draft = Array<{ tool: string; options: Values }>;
const NO_ERRORS: BuilderErrors = { steps: {} };

async function everyRecipe(client: QuireBrowser): Promise<Recipe[]> {
  const all: Recipe[] = [];
  for await (const recipe of client.recipes.iterate({ limit: 100 })) all.push(recipe);
  return all;
}

export function Recipes({ client, catalogue }: { client: QuireBrowser; catalogue: ToolList }) {
  const chainable = catalogue.data.filter((t) => t.available && t.inputs.min_files <= 1);
  const [saved, setSaved] = useState<Recipe[] | null>(null);
  const [opened, setOpened] = useState<Recipe | null>(null);
  const [name, setName] = useState('my-recipe');
  const [steps, setSteps] = useState<Draft>([]);
  const [errors, setErrors] = useState<BuilderErrors>(NO_ERRORS);
  const [adding, setAdding] = useState(chainable[0]?.name ?? '');
  const [files, setFiles] = useState<Picked[]>([]);
  const [status, setStatus] = useState('');
  const [zip, setZip] = useState<string | null>(null);
  const schemaOf = (tool: string) =>
    (catalogue.data.find((t) => t.name === tool)?.options_schema ?? {}) as Schema;

  const refresh = () =>
    everyRecipe(client).then(setSaved, (error: unknown) => {
      setSaved((known) => known ?? []);
      setStatus(`Could not list your recipes: ${error instanceof Error ? error.message : String(error)}`);
    });
  useEffect(() => {
    void refresh();
  }, [client]);

  function open(recipe: Recipe | null | undefined) {
    setOpened(recipe ?? null);
    setErrors(NO_ERRORS);
    if (!recipe) return;
    setName(recipe.name);
    setSteps(recipe.steps.map((s) => ({ tool: s.tool, options: (s.options ?? {}) as Values })));
  }

  /** The steps as the API takes them, or (in `errors`) the fields that need attention first. */
  function checkSteps(): { chain?: RecipeSteps; errors: BuilderErrors['steps'] } {
    const checked = steps.map((s) => ({ tool: s.tool, ...optionsFrom(schemaOf(s.tool), s.options) }));
    const errors = Object.fromEntries(
      checked.flatMap((s, i) =>
        Object.keys(s.errors).length ? [[i, s.errors as Record<string, string>]] : [],
      ),
    );
    if (Object.keys(errors).length > 0) return { errors };
    return { chain: checked.map((s) => ({ tool: s.tool, options: s.options })), errors };
  }

  function refused(error: unknown) {
    if (!(error instanceof QuireError)) {
      setStatus(String(error));
      return;
    }
    const placed = builderErrors(error);
    setErrors(placed);
    setStatus(placed.other ?? 'The server refused it: see the fields marked.');
  }

  async function save() {
    const mistake = nameMistake(name);
    const { chain: steps, errors: stepErrors } = checkSteps();
    setErrors({ steps: stepErrors, ...(mistake ? { name: mistake } : {}) });
    if (mistake || !steps) return;
    try {
      // The open recipe under its own name gets a new version; any other name is a new recipe.
      const result =
        opened && opened.name === name
          ? await client.recipes.replace(opened.id, steps as never)
          : await client.recipes.create({ name, steps: steps as never });
      setOpened(result);
      setStatus(`Saved “${result.name}” (version ${result.version}) on the server.`);
      await refresh();
    } catch (error) {
      refused(error);
    }
  }

  async function run(event: Event) {
    event.preventDefault();
    setZip(null);
    const { chain: current, errors: stepErrors } = checkSteps();
    setErrors({ steps: stepErrors });
    if (!current) return;
    // The saved version when the builder still shows it, so each job records the recipe it ran.
    const spec =
      opened && opened.name === name && sameSteps(opened.steps, current)
        ? { recipe: `${opened.id}@${opened.version}` }
        : { steps: current as never };
    const inputs = files.map((f) => f.file);
    try {
      if (inputs.length === 1) {
        const job = await client.jobs.create({ ...spec, inputs });
        location.hash = `#/jobs/${job.id}`;
        return;
      }
      setStatus('Running the batch…');
      let batch = await client.batches.create({ ...spec, inputs });
      while (batch.status !== 'completed') {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        batch = await client.batches.get(batch.id);
        setStatus(`Batch ${batch.progress}%: ${batch.counts.succeeded} of ${batch.total} done.`);
      }
      setZip(URL.createObjectURL(await client.batches.download(batch.id)));
      setStatus(`Batch done: ${batch.counts.succeeded} succeeded, ${batch.counts.failed} failed.`);
    } catch (error) {
      refused(error);
    }
  }

  return (
    <section aria-labelledby="recipes-title">
      <h1 id="recipes-title">Recipes</h1>
      <p>Chain tools: each step works on the result of the one before. Recipes are saved on the server.</p>
      {saved === null ? (
        <p role="status">Loading your recipes…</p>
      ) : (
        <RecipeList
          client={client}
          recipes={saved}
          onOpen={open}
          onChanged={(message, change) => {
            // The builder follows a rename or delete of what it shows and opens an import; other
            // changes leave its unsaved edits alone.
            const wasOpen = change.removed !== undefined && change.removed === opened?.id;
            if (change.created && (change.removed === undefined || wasOpen)) open(change.created);
            else if (wasOpen) setOpened(null);
            setStatus(message);
            void refresh();
          }}
          onRefusedImport={(draft, error) => {
            open(null);
            setName(draft.name);
            setSteps(draft.steps.map((s) => ({ tool: s.tool, options: s.options ?? {} })));
            refused(error);
          }}
        />
      )}
      <form onSubmit={run} noValidate>
        <h2>{opened ? `Editing ${opened.name}, version ${opened.version}` : 'New recipe'}</h2>
        <label for="recipe-name">Recipe name</label>
        <input
          id="recipe-name"
          value={name}
          aria-invalid={errors.name ? 'true' : undefined}
          aria-describedby={errors.name ? 'recipe-name-hint recipe-name-error' : 'recipe-name-hint'}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <p id="recipe-name-hint" class="hint">
          Lower-case letters, digits, “.”, “_” and “-”. Saving under the open recipe’s name adds a version.
        </p>
        {errors.name && (
          <p id="recipe-name-error" class="error" role="alert">
            {errors.name}
          </p>
        )}
        <ol class="steps">
          {steps.map((step, index) => (
            <li key={`${index}-${step.tool}`}>
              <h3>
                Step {index + 1}: {step.tool}
              </h3>
              {errors.steps[index]?.tool && (
                <p class="error" role="alert">
                  {errors.steps[index]?.tool}
                </p>
              )}
              <SchemaForm
                idPrefix={`step${index + 1}`}
                schema={schemaOf(step.tool)}
                values={step.options}
                errors={errors.steps[index] ?? {}}
                onChange={(options) => setSteps(steps.map((s, i) => (i === index ? { ...s, options } : s)))}
              />
              <button type="button" onClick={() => setSteps(steps.filter((_, i) => i !== index))}>
                Remove step {index + 1}
              </button>
            </li>
          ))}
        </ol>
        <label for="add-step">Tool for a new step</label>
        <select
          id="add-step"
          value={adding}
          onChange={(e) => setAdding((e.target as HTMLSelectElement).value)}
        >
          {chainable.map((t) => (
            <option key={t.name} value={t.name}>
              {t.title}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => setSteps([...steps, { tool: adding, options: {} }])}>
          Add step
        </button>
        <p class="actions">
          <button type="button" onClick={save} disabled={steps.length === 0}>
            Save recipe
          </button>
        </p>
        <DropZone
          accepts={['application/pdf']}
          maxFiles={catalogue.limits.max_files_per_job}
          limits={catalogue.limits}
          files={files}
          onChange={setFiles}
        />
        <p role="status" aria-live="polite">
          {status}
        </p>
        {zip && (
          <p>
            <a class="button" href={zip} download={`${name}.zip`}>
              Download the ZIP
            </a>
          </p>
        )}
        <button type="submit" disabled={steps.length === 0 || files.length === 0}>
          Run the recipe
        </button>
      </form>
    </section>
  );
}
