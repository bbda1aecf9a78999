// One tool: its generated options form, the drop zone, and "Run", which uploads (tus for large files)
// and creates the job, then follows it on the job screen. Refusals land next to the field they name.
import { type BrowserInput, type QuireBrowser, QuireError, type ToolList } from '@quire/client/browser';
import { useState } from 'preact/hooks';
import { DropZone, type Picked } from './drop-zone.js';
import { optionsFrom, type Schema, SchemaForm, type Values } from './schema-form.js';

/** Files at or above this go through tus: resumable after a reload, with their own progress. */
export const TUS_THRESHOLD_BYTES = 16 * 1024 * 1024;

/** Field errors of a refused request, by option name (`/options/<name>` pointers). */
export function fieldErrors(error: QuireError): Record<string, string> {
  const byField: Record<string, string> = {};
  for (const field of error.errors) {
    const match = /^\/options\/([^/]+)/.exec(field.pointer ?? '');
    if (match?.[1]) byField[match[1].replaceAll('~1', '/').replaceAll('~0', '~')] = field.detail;
  }
  return byField;
}

export function ToolPage(props: { client: QuireBrowser; catalogue: ToolList; name: string }) {
  const tool = props.catalogue.data.find((t) => t.name === props.name);
  const [values, setValues] = useState<Values>({});
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [files, setFiles] = useState<Picked[]>([]);
  const [status, setStatus] = useState('');
  const [failure, setFailure] = useState('');
  const [busy, setBusy] = useState(false);
  if (!tool) return <p role="alert">There is no tool named “{props.name}” on this server.</p>;
  const schema = tool.options_schema as Schema;

  async function run(event: Event) {
    event.preventDefault();
    setFailure('');
    const checked = optionsFrom(schema, values);
    setErrors(checked.errors as Record<string, string>);
    if (Object.keys(checked.errors).length > 0) {
      setFailure('Some options need attention.');
      return;
    }
    if (files.length < (tool?.inputs.min_files ?? 1)) {
      setFailure(`Choose at least ${tool?.inputs.min_files ?? 1} file(s).`);
      return;
    }
    setBusy(true);
    try {
      const inputs: BrowserInput[] = [];
      for (const picked of files) {
        if (picked.file.size < TUS_THRESHOLD_BYTES) {
          inputs.push(picked.file);
          continue;
        }
        setStatus(`Uploading ${picked.file.name}…`);
        const upload = await props.client.uploads.upload(picked.file, {
          onProgress: ({ bytesSent }) =>
            setFiles((all) => all.map((f) => (f.id === picked.id ? { ...f, sent: bytesSent } : f))),
        });
        inputs.push({ uploadId: upload.id });
      }
      setStatus('Sending the job…');
      const job = await props.client.jobs.create({
        tool: tool?.name ?? '',
        options: checked.options,
        inputs,
      });
      location.hash = `#/jobs/${job.id}`;
    } catch (error) {
      setStatus('');
      if (error instanceof QuireError) {
        const byField = fieldErrors(error);
        setErrors(byField);
        setFailure(`${error.title}: ${error.detail}`);
      } else setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="tool-title">
      <p>
        <a href="#/">All tools</a>
      </p>
      <h1 id="tool-title">{tool.title}</h1>
      <p>{tool.description}</p>
      {!tool.available && <p role="alert">Not available on this server: {tool.reason}</p>}
      <form onSubmit={run} noValidate>
        <DropZone
          accepts={tool.inputs.accepts}
          maxFiles={tool.inputs.max_files}
          limits={props.catalogue.limits}
          files={files}
          onChange={setFiles}
        />
        <SchemaForm idPrefix="opt" schema={schema} values={values} errors={errors} onChange={setValues} />
        {failure && (
          <p class="error" role="alert" id="run-error">
            {failure}
          </p>
        )}
        <p class="status" role="status" aria-live="polite">
          {status}
        </p>
        <button type="submit" disabled={busy || !tool.available}>
          Run {tool.title.toLowerCase()}
        </button>
      </form>
    </section>
  );
}
