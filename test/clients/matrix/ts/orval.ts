// A compress job, a chained job (rotate, then compress) and runJob (a merge answered with its PDF,
// written to run.pdf) through orval's fetch client, with orval's documented custom fetch
// (orval-fetch.ts), generated
// from the live /openapi.json into .tmp/clients/matrix/orval (generator-matrix.test.ts, with the
// documented `baseUrl` setting: orval's fetch functions take no base URL at run time).
// Usage: node orval.js <base-url> <api-key> <input.pdf> <output-dir>; prints the two job ids as JSON.
import { openAsBlob } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type ChainStep,
  type CreateJobBody,
  createJob,
  getJob,
  getJobDownload,
  type Job,
  runJob,
} from '../../../../.tmp/clients/matrix/orval/quire.js';

async function create(body: CreateJobBody, headers: Record<string, string>): Promise<Job> {
  const created = await createJob(body, { headers: { ...headers, Prefer: 'wait=30' } });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.data.code}`);
  return created.data;
}

/**
 * The result through its temporary link. orval's fetch client parses every body as JSON, and the
 * link answers with the result's own type (`*`/`*`), so the link is fetched as it is: a capability URL.
 */
async function finish(
  job: Job,
  headers: Record<string, string>,
  baseUrl: string,
  output: string,
): Promise<void> {
  for (let i = 0; i < 20 && (job.status === 'queued' || job.status === 'processing'); i++) {
    const polled = await getJob(job.id, { wait: 30 }, { headers });
    if (polled.status !== 200) throw new Error(`get: ${polled.status}`);
    job = polled.data;
  }
  if (job.status !== 'succeeded') throw new Error(`job ${job.id} ended ${job.status}`);
  const link = await getJobDownload(job.id, { headers: { ...headers, Accept: 'application/json' } });
  if (link.status !== 200) throw new Error(`download: ${link.status}`);
  const file = await fetch(new URL(link.data.url, baseUrl));
  if (!file.ok) throw new Error(`file: ${file.status}`);
  await writeFile(output, new Uint8Array(await file.arrayBuffer()));
}

async function main([baseUrl, key, input, outDir]: string[]): Promise<void> {
  if (!baseUrl || !key || !input || !outDir)
    throw new Error('usage: <base-url> <api-key> <input> <output-dir>');
  const headers = { Authorization: `Bearer ${key}` };
  const pdf = await openAsBlob(input, { type: 'application/pdf' });
  const single = await create({ tool: 'compress', options: { level: 'high' }, file: [pdf] }, headers);
  const steps: ChainStep[] = [{ tool: 'rotate', options: { angle: 90 } }, { tool: 'compress' }];
  const chained = await create({ steps: JSON.stringify(steps), file: [pdf] }, headers);
  await finish(single, headers, baseUrl, path.join(outDir, 'compress.pdf'));
  await finish(chained, headers, baseUrl, path.join(outDir, 'chain.pdf'));
  const ran = await runJob({ tool: 'merge', file: [pdf, pdf] }, { headers });
  if (ran.status !== 200) throw new Error(`run: ${ran.status} ${ran.data.code}`);
  await writeFile(path.join(outDir, 'run.pdf'), new Uint8Array(await ran.data.arrayBuffer()));
  process.stdout.write(`${JSON.stringify({ compress: single.id, chain: chained.id })}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
