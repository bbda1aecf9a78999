// A compress job, a chained job (rotate, then compress) and runJob (a merge answered with its PDF,
// written to run.pdf) through openapi-generator's
// typescript-fetch client, generated from the live /openapi.json into
// .tmp/clients/matrix/typescript-fetch (generator-matrix.test.ts).
// Usage: node typescript-fetch.js <base-url> <api-key> <input.pdf> <output-dir>; prints the two job ids.
import { openAsBlob } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type ChainStep,
  ChainStepToJSON,
  Configuration,
  type CreateJobRequest,
  CreateJobRequestOptionsFromJSON,
  FilesApi,
  type Job,
  JobsApi,
} from '../../../../.tmp/clients/matrix/typescript-fetch/index';

const FILES_PREFIX = '/api/v1/files/';

async function finish(jobs: JobsApi, files: FilesApi, job: Job, output: string): Promise<void> {
  for (let i = 0; i < 20 && (job.status === 'queued' || job.status === 'processing'); i++) {
    job = await jobs.getJob({ id: job.id, wait: 30 });
  }
  if (job.status !== 'succeeded') throw new Error(`job ${job.id} ended ${job.status}`);
  // The link as JSON; without this Accept the answer is a redirect that fetch follows to the file.
  const { url } = await jobs.getJobDownload({ id: job.id }, async ({ init }) => ({
    headers: { ...init.headers, Accept: 'application/json' },
  }));
  const token = decodeURIComponent(url.slice(url.indexOf(FILES_PREFIX) + FILES_PREFIX.length));
  const file = await files.getFile({ token });
  await writeFile(output, new Uint8Array(await file.arrayBuffer()));
}

async function main([baseUrl, key, input, outDir]: string[]): Promise<void> {
  if (!baseUrl || !key || !input || !outDir)
    throw new Error('usage: <base-url> <api-key> <input> <output-dir>');
  const config = new Configuration({ basePath: baseUrl, accessToken: key });
  const jobs = new JobsApi(config);
  const files = new FilesApi(config);
  const pdf = await openAsBlob(input, { type: 'application/pdf' });
  const request = (r: CreateJobRequest) => jobs.createJob({ ...r, prefer: 'wait=30', file: [pdf] });
  // typescript-fetch flattens the `options` union into one interface that requires what any tool
  // requires; its FromJSON builds it from the one tool's options.
  const single = await request({
    tool: 'compress',
    options: CreateJobRequestOptionsFromJSON({ level: 'high' }),
  });
  const steps: ChainStep[] = [{ tool: 'rotate', options: { angle: 90 } }, { tool: 'compress' }];
  const chained = await request({ steps: JSON.stringify(steps.map((step) => ChainStepToJSON(step))) });
  await finish(jobs, files, single, path.join(outDir, 'compress.pdf'));
  await finish(jobs, files, chained, path.join(outDir, 'chain.pdf'));
  const ran = await jobs.runJob({ tool: 'merge', file: [pdf, pdf] });
  await writeFile(path.join(outDir, 'run.pdf'), new Uint8Array(await ran.arrayBuffer()));
  process.stdout.write(`${JSON.stringify({ compress: single.id, chain: chained.id })}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
