// The account's jobs, newest first: paged (`starting_after`), filtered by status and tool, with
// re-download while the result exists and delete; and the plan's limits as the API reports them.
import type { Job, JobList, ListJobsQuery, QuireBrowser, ToolList } from '@quire/client/browser';
import { useEffect, useState } from 'preact/hooks';
import { bytes } from './format.js';

const STATUSES = ['queued', 'processing', 'succeeded', 'failed', 'canceled'] as const;
const PAGE_SIZE = 20;

export function JobsPage({ client, catalogue }: { client: QuireBrowser; catalogue: ToolList }) {
  const [status, setStatus] = useState('');
  const [tool, setTool] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const [page, setPage] = useState<JobList | null>(null);
  const [message, setMessage] = useState('');
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const query: ListJobsQuery = { limit: PAGE_SIZE };
    if (status) query.status = status as ListJobsQuery['status'];
    if (tool) query.tool = tool;
    const after = cursors.at(-1);
    if (after) query.starting_after = after;
    client.jobs.list(query).then(setPage, (e: Error) => setMessage(e.message));
  }, [client, status, tool, cursors, reload]);

  async function download(job: Job) {
    try {
      const link = await client.jobs.downloadLink(job.id);
      const a = document.createElement('a');
      a.href = link.url;
      a.download = job.result?.name ?? '';
      a.click();
    } catch (error) {
      setMessage(error instanceof Error ? error.message : String(error));
    }
  }

  async function remove(job: Job) {
    await client.jobs.delete(job.id);
    setMessage(`Deleted ${job.id}.`);
    setReload((n) => n + 1);
  }

  const limits = catalogue.limits;
  return (
    <section aria-labelledby="jobs-title">
      <h1 id="jobs-title">Jobs</h1>
      <div class="filters">
        <label for="filter-status">Status</label>
        <select
          id="filter-status"
          value={status}
          onChange={(e) => {
            setStatus((e.target as HTMLSelectElement).value);
            setCursors([]);
          }}
        >
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label for="filter-tool">Tool</label>
        <select
          id="filter-tool"
          value={tool}
          onChange={(e) => {
            setTool((e.target as HTMLSelectElement).value);
            setCursors([]);
          }}
        >
          <option value="">Any</option>
          {catalogue.data.map((t) => (
            <option key={t.name} value={t.name}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      <p role="status" aria-live="polite">
        {message}
      </p>
      {page && page.data.length === 0 && <p>No jobs here yet.</p>}
      {page && page.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr">Jobs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Tool</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Result</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((job) => (
                <tr key={job.id}>
                  <td data-label="Job">
                    <a href={`#/jobs/${job.id}`}>{job.id}</a>
                  </td>
                  <td data-label="Tool">{job.tool}</td>
                  <td data-label="Status">
                    <span class={`badge ${job.status}`}>{job.status}</span>
                  </td>
                  <td data-label="Created">{new Date(job.created_at).toLocaleString()}</td>
                  <td data-label="Result">
                    {job.result ? `${job.result.name} (${bytes(job.result.size)})` : '—'}
                  </td>
                  <td class="actions">
                    {job.status === 'succeeded' && (
                      <button type="button" onClick={() => download(job)}>
                        Download<span class="sr"> {job.id}</span>
                      </button>
                    )}
                    <button type="button" onClick={() => remove(job)}>
                      Delete<span class="sr"> {job.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="actions">
        <button
          type="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          disabled={!page?.has_more}
          onClick={() => {
            const last = page?.data.at(-1);
            if (last) setCursors([...cursors, last.id]);
          }}
        >
          Older
        </button>
      </p>
      <h2>Your plan: {limits.plan}</h2>
      <dl class="limits">
        <dt>Largest file</dt>
        <dd>{bytes(limits.max_file_bytes)}</dd>
        <dt>Largest upload per job</dt>
        <dd>{bytes(limits.max_upload_bytes)}</dd>
        <dt>Files per job</dt>
        <dd>{limits.max_files_per_job}</dd>
        <dt>Pages per job</dt>
        <dd>{limits.max_pages_per_job}</dd>
        <dt>Jobs at once</dt>
        <dd>{limits.concurrent_jobs}</dd>
        <dt>Requests</dt>
        <dd>
          {limits.requests_per_window} per {limits.window_seconds} s
        </dd>
        <dt>Results kept for</dt>
        <dd>{Math.round(limits.result_retention_seconds / 3600)} h</dd>
      </dl>
    </section>
  );
}
