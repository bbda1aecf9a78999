// A compress job, a chained job (rotate, then compress) and runJob (a merge answered with its PDF,
// written to run.pdf) through the SDK @hey-api/openapi-ts
// generates from the live /openapi.json into .tmp/clients/matrix/hey-api (generator-matrix.test.ts).
// Usage: node hey-api.js <base-url> <api-key> <input.pdf> <output-dir>; prints the two job ids as JSON.
import { openAsBlob } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { client } from '../../../../.tmp/clients/matrix/hey-api/client.gen.js';
import {
  type ChainStep,
  type CreateJobData,
  createJob,
  getFile,
  getJob,
  getJobDownload,
  type Job,
  runJob,
} from '../../../../.tmp/clients/matrix/hey-api/index.js';

const FILES_PREFIX = '/api/v1/files/';

async function create(body: CreateJobData['body']): Promise<Job> {
  const created = await createJob({ body, headers: { Prefer: 'wait=30' } });
  if (created.error !== undefined)
    throw new Error(`create: ${created.response.status} ${created.error.code}`);
  return created.data;
}

async function finish(job: Job, output: string): Promise<void> {
  for (let i = 0; i < 20 && (job.status === 'queued' || job.status === 'processing'); i++) {
    const polled = await getJob({ path: { id: job.id }, query: { wait: 30 } });
    if (polled.error !== undefined) throw new Error(`get: ${polled.response.status}`);
    job = polled.data;
  }
  if (job.status !== 'succeeded') throw new Error(`job ${job.id} ended ${job.status}`);
  // The link as JSON; without this Accept the answer is a redirect that fetch follows to the file.
  const link = await getJobDownload({ path: { id: job.id }, headers: { Accept: 'application/json' } });
  if (link.error !== undefined) throw new Error(`download: ${link.response.status}`);
  const url = link.data.url;
  const token = decodeURIComponent(url.slice(url.indexOf(FILES_PREFIX) + FILES_PREFIX.length));
  const file = await getFile({ path: { token }, parseAs: 'blob' });
  if (file.error !== undefined) throw new Error(`file: ${file.response.status}`);
  await writeFile(output, new Uint8Array(await file.data.arrayBuffer()));
}

async function main([baseUrl, key, input, outDir]: string[]): Promise<void> {
  if (!baseUrl || !key || !input || !outDir)
    throw new Error('usage: <base-url> <api-key> <input> <output-dir>');
  client.setConfig({ baseUrl, auth: key });
  const pdf = await openAsBlob(input, { type: 'application/pdf' });
  const single = await create({ tool: 'compress', options: { level: 'high' }, file: [pdf] });
  const steps: ChainStep[] = [{ tool: 'rotate', options: { angle: 90 } }, { tool: 'compress' }];
  const chained = await create({ steps: JSON.stringify(steps), file: [pdf] });
  await finish(single, path.join(outDir, 'compress.pdf'));
  await finish(chained, path.join(outDir, 'chain.pdf'));
  const ran = await runJob({ body: { tool: 'merge', file: [pdf, pdf] }, parseAs: 'blob' });
  if (ran.error !== undefined) throw new Error(`run: ${ran.response.status} ${ran.error.code}`);
  await writeFile(path.join(outDir, 'run.pdf'), new Uint8Array(await ran.data.arrayBuffer()));
  process.stdout.write(`${JSON.stringify({ compress: single.id, chain: chained.id })}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
