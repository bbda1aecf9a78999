// A compress job, a chained job (rotate, then compress) and runJob (a merge answered with its PDF,
// written to run.pdf) through openapi-fetch, typed by the schema
// openapi-typescript generates from the live /openapi.json into .tmp/clients/matrix/openapi-typescript
// (generator-matrix.test.ts, with openapi-typescript's documented Blob transform for `format: binary`).
// Usage: node openapi-fetch.js <base-url> <api-key> <input.pdf> <output-dir>; prints the two job ids.
import { openAsBlob } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import createClient from 'openapi-fetch';
import type { components, paths } from '../../../../.tmp/clients/matrix/openapi-typescript/schema.js';

type CreateJobBody = paths['/api/v1/jobs']['post']['requestBody']['content']['multipart/form-data'];
type Job = components['schemas']['Job'];
type ChainStep = components['schemas']['ChainStep'];

/** openapi-fetch's documented multipart serializer: JSON parts as JSON text, then the files. */
function toFormData(body: CreateJobBody): FormData {
  const form = new FormData();
  if (body.tool !== undefined) form.append('tool', body.tool);
  if (body.options !== undefined) form.append('options', JSON.stringify(body.options));
  if (body.steps !== undefined) form.append('steps', body.steps);
  for (const file of body.file ?? []) form.append('file', file, 'input.pdf');
  return form;
}

async function main([baseUrl, key, input, outDir]: string[]): Promise<void> {
  if (!baseUrl || !key || !input || !outDir)
    throw new Error('usage: <base-url> <api-key> <input> <output-dir>');
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
  const pdf = await openAsBlob(input, { type: 'application/pdf' });

  async function create(body: CreateJobBody): Promise<Job> {
    const created = await client.POST('/api/v1/jobs', {
      body,
      bodySerializer: toFormData,
      params: { header: { Prefer: 'wait=30' } },
    });
    if (created.error !== undefined)
      throw new Error(`create: ${created.response.status} ${created.error.code}`);
    return created.data;
  }

  async function finish(job: Job, output: string): Promise<void> {
    for (let i = 0; i < 20 && (job.status === 'queued' || job.status === 'processing'); i++) {
      const polled = await client.GET('/api/v1/jobs/{id}', {
        params: { path: { id: job.id }, query: { wait: 30 } },
      });
      if (polled.error !== undefined) throw new Error(`get: ${polled.response.status}`);
      job = polled.data;
    }
    if (job.status !== 'succeeded') throw new Error(`job ${job.id} ended ${job.status}`);
    const download = await client.GET('/api/v1/jobs/{id}/download', {
      params: { path: { id: job.id } },
      parseAs: 'arrayBuffer',
    });
    if (download.error !== undefined) throw new Error(`download: ${download.response.status}`);
    await writeFile(output, new Uint8Array(download.data));
  }

  const single = await create({ tool: 'compress', options: { level: 'high' }, file: [pdf] });
  const steps: ChainStep[] = [{ tool: 'rotate', options: { angle: 90 } }, { tool: 'compress' }];
  const chained = await create({ steps: JSON.stringify(steps), file: [pdf] });
  await finish(single, path.join(outDir, 'compress.pdf'));
  await finish(chained, path.join(outDir, 'chain.pdf'));
  const ran = await client.POST('/api/v1/run', {
    body: { tool: 'merge', file: [pdf, pdf] },
    bodySerializer: toFormData,
    // Left unparsed: openapi-fetch types `data` from the schema's Blob with its methods mapped away,
    // so the bytes are read from the Response it hands back with the body untouched.
    parseAs: 'stream',
  });
  if (ran.error !== undefined) throw new Error(`run: ${ran.response.status} ${ran.error.code}`);
  await writeFile(path.join(outDir, 'run.pdf'), new Uint8Array(await ran.response.arrayBuffer()));
  process.stdout.write(`${JSON.stringify({ compress: single.id, chain: chained.id })}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
