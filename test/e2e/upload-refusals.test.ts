// Issue 26, finding 6: a refused job or batch request leaves the tus uploads it named usable
// (docs/api.md "Resumable uploads"): an upload is taken only when the job is stored. Over real HTTP in
// the embedded default (SQLite, file store); no workers, as no job needs to run.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { useTestServer } from '../support/use-test-server.js';

const small = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
/** The pro plan here: 2,000,000 bytes stored and 3 jobs per window, so quotas refuse after the body. */
const STORED = 2_000_000;

const quire = useTestServer(
  { QUIRE_PLAN_PRO_MAX_STORED_BYTES: String(STORED), QUIRE_PLAN_PRO_JOBS_PER_WINDOW: '3' },
  { workers: false },
);

/** A finished upload of the small corpus PDF. */
async function uploaded(client: Client): Promise<string> {
  const bytes = await readFile(small);
  const tus = { 'tus-resumable': '1.0.0' };
  const created = await fetch(`${quire.server.url}/api/v1/uploads`, {
    method: 'POST',
    headers: client.headers({
      ...tus,
      'upload-length': String(bytes.length),
      'content-type': 'application/offset+octet-stream',
    }),
    body: bytes,
  });
  expect(created.status, await created.clone().text()).toBe(201);
  return created.headers.get('location')!.split('/').pop()!;
}

async function offsetOf(client: Client, id: string): Promise<number> {
  return (
    await fetch(`${quire.server.url}/api/v1/uploads/${id}`, {
      method: 'HEAD',
      headers: client.headers({ 'tus-resumable': '1.0.0' }),
    })
  ).status;
}

/** The upload_id parts first, so each refusal comes after the uploads were read. */
function send(client: Client, route: 'jobs' | 'batches', parts: Array<[string, string | Blob]>) {
  const form = new FormData();
  for (const [name, value] of parts) form.append(name, value);
  return client.fetch(`/api/v1/${route}`, { method: 'POST', body: form });
}

async function refused(response: Response, status: number, code: string): Promise<void> {
  expect(response.status, await response.clone().text()).toBe(status);
  expect(((await response.json()) as { code: string }).code).toBe(code);
}

describe('a refused job request leaves its upload usable', () => {
  it('keeps the upload through bad options, an unknown tool, bad steps, too many files and the storage quota; the job that is created consumes it', async () => {
    const client = await quire.clientOn('pro');
    const id = await uploaded(client);
    const pdf = new Blob([await readFile(small)]);
    await refused(
      await send(client, 'jobs', [
        ['upload_id', id],
        ['tool', 'rotate'],
        ['options', '{"angle":7}'],
      ]),
      400,
      'invalid_options',
    );
    await refused(
      await send(client, 'jobs', [
        ['upload_id', id],
        ['tool', 'no-such-tool'],
      ]),
      400,
      'unknown_tool',
    );
    await refused(
      await send(client, 'jobs', [
        ['upload_id', id],
        ['steps', '[{"tool":"rotate","options":{"angle":7}}]'],
      ]),
      400,
      'invalid_options',
    );
    await refused(
      await send(client, 'jobs', [
        ['upload_id', id],
        ['file', pdf],
        ['tool', 'compress'],
      ]),
      400,
      'too_many_files',
    );
    // The upload's bytes already count against the quota; a file part over the rest is refused once
    // the body is read.
    const big = new Blob([Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(STORED, 0x20)])]);
    await refused(
      await send(client, 'jobs', [
        ['upload_id', id],
        ['file', big],
        ['tool', 'merge'],
      ]),
      413,
      'storage_quota_exceeded',
    );
    expect(await offsetOf(client, id)).toBe(200);

    const created = await send(client, 'jobs', [
      ['upload_id', id],
      ['tool', 'compress'],
    ]);
    expect(created.status, await created.clone().text()).toBe(201);
    expect(await offsetOf(client, id)).toBe(404);
    await refused(
      await send(client, 'jobs', [
        ['upload_id', id],
        ['tool', 'compress'],
      ]),
      404,
      'not_found',
    );
  });

  it('refuses an upload named twice in one request and leaves it usable', async () => {
    const client = await quire.clientOn('business');
    const id = await uploaded(client);
    await refused(
      await send(client, 'jobs', [
        ['upload_id', id],
        ['upload_id', id],
        ['tool', 'merge'],
      ]),
      400,
      'invalid_request',
    );
    expect(await offsetOf(client, id)).toBe(200);
  });
});

describe('a refused batch request leaves its uploads usable', () => {
  it('keeps both uploads through bad options, an unknown tool and jobs_per_window (429 after the body); the batch that is created consumes them', async () => {
    const client = await quire.clientOn('pro');
    const ids = [await uploaded(client), await uploaded(client)];
    const items = ids.map((id): [string, string] => ['upload_id', id]);
    await refused(
      await send(client, 'batches', [...items, ['tool', 'rotate'], ['options', '{"angle":7}']]),
      400,
      'invalid_options',
    );
    await refused(await send(client, 'batches', [...items, ['tool', 'no-such-tool']]), 400, 'unknown_tool');
    // Three jobs per window: a batch of four is refused only once its parts are counted.
    const pdf = new Blob([await readFile(small)]);
    await refused(
      await send(client, 'batches', [...items, ['file', pdf], ['file', pdf], ['tool', 'compress']]),
      429,
      'jobs_per_window_exceeded',
    );
    for (const id of ids) expect(await offsetOf(client, id)).toBe(200);

    const created = await send(client, 'batches', [...items, ['tool', 'compress']]);
    expect(created.status, await created.clone().text()).toBe(201);
    expect(((await created.json()) as { total: number }).total).toBe(2);
    for (const id of ids) expect(await offsetOf(client, id)).toBe(404);
    await refused(await send(client, 'batches', [items[0]!, ['tool', 'compress']]), 404, 'not_found');
  });
});
