// A consumer written only against the published document: openapi-fetch typed by the schema that
// openapi-typescript generates from the live /openapi.json into .tmp/clients/ts/schema.d.ts (by
// test/clients/typescript-client.test.ts). No casts and no `any`, so every field read here is one
// the document declares. Compresses a PDF, then makes the documented options error happen.
// Usage: node compress-client.js <base-url> <api-key> <input.pdf> <output.pdf>; prints a JSON report.
import { openAsBlob } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import createClient from 'openapi-fetch';
import type { paths } from '../../../.tmp/clients/ts/schema.js';

type CreateJobBody = paths['/api/v1/jobs']['post']['requestBody']['content']['multipart/form-data'];

const WAIT_SECONDS = 30;
const DEADLINE_MS = 90_000;

/**
 * The multipart body as the document describes it: `tool`, then `options` and `metadata` as JSON
 * text (their encoding is application/json), then one `file` part per input.
 */
function toFormData(body: CreateJobBody): FormData {
  const form = new FormData();
  form.append('tool', body.tool);
  if (body.options !== undefined) form.append('options', JSON.stringify(body.options));
  if (body.metadata !== undefined) form.append('metadata', JSON.stringify(body.metadata));
  for (const file of body.file ?? []) form.append('file', file, 'input.pdf');
  return form;
}

async function main(argv: string[]): Promise<void> {
  const [baseUrl, key, input, output] = argv;
  if (!baseUrl || !key || !input || !output) throw new Error('usage: <base-url> <api-key> <input> <output>');
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
  const pdf = await openAsBlob(input, { type: 'application/pdf' });

  const created = await client.POST('/api/v1/jobs', {
    body: {
      tool: 'compress',
      options: { level: 'medium', grayscale: false },
      metadata: { client: 'openapi-fetch' },
      file: [pdf],
    },
    bodySerializer: toFormData,
  });
  if (created.error !== undefined)
    throw new Error(`create: ${created.response.status} ${created.error.code}`);
  const id = created.data.id;
  const createdStatus = created.response.status;

  const deadline = Date.now() + DEADLINE_MS;
  let status = created.data.status;
  while (status === 'queued' || status === 'processing') {
    if (Date.now() > deadline) throw new Error(`job ${id} still ${status}`);
    const polled = await client.GET('/api/v1/jobs/{id}', {
      params: { path: { id }, query: { wait: WAIT_SECONDS } },
    });
    if (polled.error !== undefined) throw new Error(`get: ${polled.response.status} ${polled.error.code}`);
    status = polled.data.status;
  }

  const download = await client.GET('/api/v1/jobs/{id}/download', {
    params: { path: { id } },
    parseAs: 'arrayBuffer',
  });
  if (download.error !== undefined) throw new Error(`download: ${download.response.status}`);
  const bytes = new Uint8Array(download.data);
  await writeFile(output, bytes);

  // `options` is typed as any tool's options (the document cannot tie them to `tool`), so rotate's
  // options sent for compress type-check and are the server's to refuse.
  const refused = await client.POST('/api/v1/jobs', {
    body: { tool: 'compress', options: { angle: 90 }, file: [pdf] },
    bodySerializer: toFormData,
  });
  const problem = refused.error;

  const report = {
    job: { id, createdStatus, status },
    download: {
      redirected: download.response.redirected,
      contentType: download.response.headers.get('content-type'),
      bytes: bytes.length,
      file: path.resolve(output),
    },
    refused: {
      status: refused.response.status,
      contentType: refused.response.headers.get('content-type'),
      code: problem === undefined ? null : problem.code,
    },
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
