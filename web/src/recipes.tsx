// The recipe builder: a chain of steps from the catalogue, each with its generated form, run on one
// file (one chained job) or on several (a batch, downloaded as one ZIP). Recipes are saved in
// localStorage as their steps and options only (never a document), and exported or imported as JSON.
import { type QuireBrowser, QuireError, type ToolList } from '@quire/client/browser';
import { useState } from 'preact/hooks';
import { DropZone, type Picked } from './drop-zone.js';
import { optionsFrom, type Schema, SchemaForm, type Values } from './schema-form.js';

interface Recipe {
  name: string;
  steps: Array<{ tool: string; options: Values }>;
}

const STORE = 'quire.recipes';

function savedRecipes(): Recipe[] {
  try {
    return JSON.parse(localStorage.getItem(STORE) ?? '[]') as Recipe[];
  } catch {
    return [];
  }
}

function keep(recipes: Recipe[]): void {
  localStorage.setItem(STORE, JSON.stringify(recipes));
}

export function Recipes({ client, catalogue }: { client: QuireBrowser; catalogue: ToolList }) {
  const chainable = catalogue.data.filter((t) => t.available && t.inputs.min_files <= 1);
  const [name, setName] = useState('My recipe');
  const [steps, setSteps] = useState<Array<{ tool: string; options: Values }>>([]);
  const [adding, setAdding] = useState(chainable[0]?.name ?? '');
  const [saved, setSaved] = useState(savedRecipes);
  const [files, setFiles] = useState<Picked[]>([]);
  const [status, setStatus] = useState('');
  const [zip, setZip] = useState<string | null>(null);
  const schemaOf = (tool: string) =>
    (catalogue.data.find((t) => t.name === tool)?.options_schema ?? {}) as Schema;

  function save() {
    const next = [...saved.filter((r) => r.name !== name), { name, steps }];
    keep(next);
    setSaved(next);
    setStatus(`Saved “${name}”.`);
  }

  function exportJson() {
    const url = URL.createObjectURL(
      new Blob([JSON.stringify({ name, steps }, null, 2)], { type: 'application/json' }),
    );
    const a = document.createElement('a');
    a.href = url;
    a.download = `${name}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  async function importJson(list: FileList | null) {
    const file = list?.[0];
    if (!file) return;
    try {
      const recipe = JSON.parse(await file.text()) as Recipe;
      if (!Array.isArray(recipe.steps)) throw new Error('no steps');
      setName(recipe.name ?? file.name);
      setSteps(recipe.steps);
      setStatus(`Imported “${recipe.name}”.`);
    } catch (error) {
      setStatus(`That file is not a recipe: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async function run(event: Event) {
    event.preventDefault();
    setZip(null);
    const chain = steps.map((s) => ({
      tool: s.tool,
      options: optionsFrom(schemaOf(s.tool), s.options).options,
    }));
    try {
      if (files.length === 1 && files[0]) {
        const job = await client.jobs.create({ steps: chain as never, inputs: [files[0].file] });
        location.hash = `#/jobs/${job.id}`;
        return;
      }
      setStatus('Running the batch…');
      let batch = await client.batches.create({ steps: chain as never, inputs: files.map((f) => f.file) });
      while (batch.status !== 'completed') {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        batch = await client.batches.get(batch.id);
        setStatus(`Batch ${batch.progress}%: ${batch.counts.succeeded} of ${batch.total} done.`);
      }
      setZip(URL.createObjectURL(await client.batches.download(batch.id)));
      setStatus(`Batch done: ${batch.counts.succeeded} succeeded, ${batch.counts.failed} failed.`);
    } catch (error) {
      setStatus(error instanceof QuireError ? `${error.title}: ${error.detail}` : String(error));
    }
  }

  return (
    <section aria-labelledby="recipes-title">
      <h1 id="recipes-title">Recipes</h1>
      <p>Chain tools: each step works on the result of the one before. Saved in this browser.</p>
      {saved.length > 0 && (
        <ul aria-label="Saved recipes">
          {saved.map((r) => (
            <li key={r.name}>
              <button
                type="button"
                onClick={() => {
                  setName(r.name);
                  setSteps(r.steps);
                }}
              >
                Open {r.name}
              </button>
              <button
                type="button"
                onClick={() => {
                  const next = saved.filter((x) => x.name !== r.name);
                  keep(next);
                  setSaved(next);
                }}
              >
                Delete<span class="sr"> {r.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={run} noValidate>
        <label for="recipe-name">Recipe name</label>
        <input id="recipe-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <ol class="steps">
          {steps.map((step, index) => (
            <li key={`${index}-${step.tool}`}>
              <h2>
                Step {index + 1}: {step.tool}
              </h2>
              <SchemaForm
                idPrefix={`step${index + 1}`}
                schema={schemaOf(step.tool)}
                values={step.options}
                errors={{}}
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
          <button type="button" onClick={exportJson} disabled={steps.length === 0}>
            Export JSON
          </button>
        </p>
        <label for="recipe-import">Import a recipe (JSON)</label>
        <input
          id="recipe-import"
          type="file"
          accept="application/json,.json"
          onChange={(e) => importJson((e.target as HTMLInputElement).files)}
        />
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
