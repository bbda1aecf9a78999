// One job: live progress over SSE (with the running step of a chain), cancel, and at the end the
// result (download, size before and after, a preview of PDFs and images) or the error in words.
import { type Job, type QuireBrowser, QuireError } from '@quire/client/browser';
import { lazy, Suspense } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { bytes } from './format.js';
import { ZipListing } from './zip-listing.js';

// pdf.js is loaded only when a preview opens: it is most of the app's weight.
const PdfPreview = lazy(() => import('./pdf-preview.js'));

const ENDED = new Set(['succeeded', 'failed', 'canceled']);

export function JobView({ client, id }: { client: QuireBrowser; id: string }) {
  const [job, setJob] = useState<Job | null>(null);
  const [failure, setFailure] = useState('');
  const [link, setLink] = useState<string | null>(null);
  const [preview, setPreview] = useState(false);

  useEffect(() => {
    const stop = new AbortController();
    setJob(null);
    setLink(null);
    setPreview(false);
    client.jobs
      .wait(id, { signal: stop.signal, onProgress: (p) => setJob(p.job) })
      .then(setJob)
      .catch((error: unknown) => {
        if (stop.signal.aborted) return;
        if (error instanceof QuireError && error.job) setJob(error.job);
        else setFailure(error instanceof Error ? error.message : String(error));
      });
    return () => stop.abort();
  }, [client, id]);

  useEffect(() => {
    if (job?.status !== 'succeeded') return;
    client.jobs.downloadLink(job.id).then(
      (l) => setLink(l.url),
      (error: Error) => setFailure(error.message),
    );
  }, [client, job?.id, job?.status]);

  if (failure && !job) return <p role="alert">{failure}</p>;
  if (!job) return <p role="status">Loading the job…</p>;
  const before = job.input.files.reduce((sum, f) => sum + f.size, 0);
  const steps = (job as { steps?: Array<{ tool: string }> }).steps;
  const running = !ENDED.has(job.status);
  const type = job.result?.content_type ?? '';

  return (
    <section aria-labelledby="job-title">
      <h1 id="job-title">
        {job.tool} <span class="muted">{job.id}</span>
      </h1>
      <div role="status" aria-live="polite" class="progress-box">
        <p>
          <span class={`badge ${job.status}`}>{job.status}</span> {job.progress}%
          {job.step && steps && (
            <span>
              {' '}
              — step {job.step.index + 1} of {steps.length}: {job.step.tool}
            </span>
          )}
        </p>
      </div>
      <progress max={100} value={job.progress} aria-label="Job progress" />
      {running && (
        <button
          type="button"
          onClick={() => client.jobs.cancel(job.id).then(setJob, (e: Error) => setFailure(e.message))}
        >
          Cancel job
        </button>
      )}
      {job.status === 'failed' && job.error && (
        <div role="alert" class="error">
          <p>
            <strong>The job failed</strong> ({job.error.code}
            {job.error.step ? `, step ${job.error.step.index + 1}: ${job.error.step.tool}` : ''}).
          </p>
          <p>{job.error.message}</p>
          {job.error.retryable && <p>Running it again may work.</p>}
        </div>
      )}
      {job.status === 'canceled' && <p role="alert">The job was canceled.</p>}
      {job.result && (
        <div class="result">
          <h2>Result</h2>
          <p>
            {job.result.name}: {bytes(job.result.size)}{' '}
            <span class="muted">
              (input {bytes(before)}
              {before > 0 && `, ${Math.round((100 * job.result.size) / before)}% of it`})
            </span>
          </p>
          {link ? (
            <p class="actions">
              <a class="button" href={link} download={job.result.name}>
                Download {job.result.name}
              </a>
              {(type === 'application/pdf' || type.startsWith('image/')) && (
                <button type="button" onClick={() => setPreview(!preview)} aria-expanded={preview}>
                  {preview ? 'Hide preview' : 'Preview'}
                </button>
              )}
            </p>
          ) : (
            <p role="status">Preparing the download link…</p>
          )}
          {link && type === 'application/zip' && <ZipListing url={link} size={job.result.size} />}
          {preview && link && type.startsWith('image/') && (
            <img class="preview" src={link} alt={`Preview of ${job.result.name}`} />
          )}
          {preview && link && type === 'application/pdf' && (
            <Suspense fallback={<p role="status">Loading the PDF viewer…</p>}>
              <PdfPreview url={link} />
            </Suspense>
          )}
        </div>
      )}
      {failure && <p role="alert">{failure}</p>}
      <p>
        <a href="#/jobs">All jobs</a>
      </p>
    </section>
  );
}
