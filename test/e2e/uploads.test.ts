// Resumable uploads (tus 1.0, docs/api.md "Resumable uploads") over real HTTP in the embedded default
// (SQLite, file store): tus-js-client uploads and jobs from upload_id, the plan limit before any byte,
// checksums, ownership, incomplete uploads, termination and expiry.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { qpdfCheckPasses, toFile } from '../support/pdf.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { largePdf, tusUpload } from '../support/tus.js';
import { useTestServer } from '../support/use-test-server.js';

const MiB = 1024 * 1024;
const small = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const TUS = { 'tus-resumable': '1.0.0' };

const quire = useTestServer({
  QUIRE_UPLOAD_MAX_FILE_BYTES: String(64 * MiB),
  QUIRE_UPLOAD_MAX_TOTAL_BYTES: String(128 * MiB),
  QUIRE_UPLOAD_IDLE_TIMEOUT_MS: '3000',
  QUIRE_UPLOAD_MAX_CONCURRENT_PER_ACCOUNT: '1',
});

function tus(key: string, extra: Record<string, string> = {}) {
  return { ...TUS, authorization: `Bearer ${key}`, ...extra };
}

async function create(key: string, length: number): Promise<Response> {
  return fetch(`${quire.server.url}/api/v1/uploads`, {
    method: 'POST',
    headers: tus(key, { 'upload-length': String(length) }),
  });
}

async function createdId(key: string, length: number): Promise<string> {
  const response = await create(key, length);
  expect(response.status, await response.clone().text()).toBe(201);
  return response.headers.get('location')!.split('/').pop()!;
}

async function patch(
  key: string,
  id: string,
  offset: number,
  body: Buffer,
  extra: Record<string, string> = {},
) {
  return fetch(`${quire.server.url}/api/v1/uploads/${id}`, {
    method: 'PATCH',
    headers: tus(key, {
      'upload-offset': String(offset),
      'content-type': 'application/offset+octet-stream',
      ...extra,
    }),
    body,
  });
}

async function offsetOf(key: string, id: string): Promise<Response> {
  return fetch(`${quire.server.url}/api/v1/uploads/${id}`, { method: 'HEAD', headers: tus(key) });
}

async function jobFrom(key: string, parts: Array<['upload_id', string] | ['file', string]>, tool = 'merge') {
  const form = new FormData();
  form.set('tool', tool);
  for (const [name, value] of parts) {
    if (name === 'upload_id') form.append('upload_id', value);
    else form.append('file', new Blob([await readFile(value)]), path.basename(value));
  }
  return new Client(quire.server.url, key).fetch('/api/v1/jobs', { method: 'POST', body: form });
}

async function storedUploads(): Promise<string[]> {
  return (await readdir(path.join(quire.server.dataDir, 'uploads')).catch(() => [])).filter(
    (n) => !n.startsWith('.'),
  );
}

describe('tus uploads and jobs from them', () => {
  it('tus-js-client uploads in 5 MiB chunks; a job takes the upload in order with a file part', async () => {
    const pdf = largePdf(12 * MiB + 123);
    const url = await tusUpload(quire.server.url, pdf.stream, {
      key: quire.key,
      chunkSize: 5 * MiB,
      size: 12 * MiB + 123,
    });
    const id = url.split('/').pop()!;
    expect(id).toMatch(/^upl_[0-9A-HJKMNP-TV-Z]{26}$/);
    const stored = await readFile(path.join(quire.server.dataDir, 'uploads', id));
    expect(createHash('sha256').update(stored).digest('hex')).toBe(await pdf.sha256);
    expect(qpdfCheckPasses(toFile(stored))).toBe(true);

    const response = await jobFrom(quire.key, [
      ['file', small],
      ['upload_id', id],
    ]);
    expect(response.status, await response.clone().text()).toBe(201);
    const created = (await response.json()) as JobBody;
    expect(
      (created.input as { files: Array<{ size: number; name: string }> }).files.map((i) => i.size),
    ).toEqual([expect.any(Number), 12 * MiB + 123]);
    const job = await quire.client.waitFor(created.id);
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    // Consumed: moved into the job, so the upload is gone and cannot be used twice.
    expect(await storedUploads()).not.toContain(id);
    expect((await offsetOf(quire.key, id)).status).toBe(404);
    const again = await jobFrom(quire.key, [['upload_id', id]], 'compress');
    expect(again.status).toBe(404);
  });

  it('replays a job made from an upload for a retry with the same Idempotency-Key', async () => {
    const bytes = await readFile(small);
    const id = await createdId(quire.key, bytes.length);
    expect((await patch(quire.key, id, 0, bytes)).status).toBe(204);
    const send = async (uploadId: string) => {
      const form = new FormData();
      form.set('tool', 'compress');
      form.append('upload_id', uploadId);
      return quire.client.fetch('/api/v1/jobs', {
        method: 'POST',
        body: form,
        headers: { 'idempotency-key': `k-${id}` },
      });
    };
    const first = await send(id);
    expect(first.status).toBe(201);
    const replayed = await send(id);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replayed.json()) as JobBody).id).toBe(((await first.json()) as JobBody).id);
    const other = await send(await createdId(quire.key, 10));
    expect(other.status).toBe(422);
  });

  it('refuses an Upload-Length over the plan’s file limit with 413 and limit_bytes, storing nothing', async () => {
    const before = await storedUploads();
    const response = await create(quire.key, 64 * MiB + 1);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ code: 'payload_too_large', limit_bytes: 64 * MiB });
    expect(await storedUploads()).toEqual(before);
  });

  it('answers a request without Tus-Resumable, or with an empty one, with 400, and another version with 412', async () => {
    for (const version of [{}, { 'tus-resumable': '' }] as Record<string, string>[]) {
      const missing = await fetch(`${quire.server.url}/api/v1/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${quire.key}`, 'upload-length': '10', ...version },
      });
      expect(missing.status).toBe(400);
      expect(missing.headers.get('tus-resumable')).toBe('1.0.0');
      expect(await missing.json()).toMatchObject({
        code: 'invalid_request',
        errors: [{ field: 'Tus-Resumable', detail: 'required' }],
      });
    }
    const other = await fetch(`${quire.server.url}/api/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${quire.key}`, 'tus-resumable': '0.2.2', 'upload-length': '10' },
    });
    expect(other.status).toBe(412);
    expect(other.headers.get('tus-resumable')).toBe('1.0.0');
    expect(other.headers.get('tus-version')).toBe('1.0.0');
    expect(await other.json()).toMatchObject({ code: 'tus_version_unsupported' });
  });

  it('replays an upload’s creation with its tus headers, and leaves a key refused with 412 usable', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${quire.server.url}/api/v1/uploads`, { method: 'POST', headers: tus(quire.key, headers) });
    const key = { 'idempotency-key': `tus-${Date.now()}`, 'upload-length': '10' };
    // A version this server does not speak refuses the request before it starts: not stored.
    const refused = await post({ ...key, 'tus-resumable': '0.2.2' });
    expect(refused.status).toBe(412);
    expect(refused.headers.get('tus-version')).toBe('1.0.0');
    const first = await post(key);
    expect(first.status, await first.clone().text()).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post(key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    for (const name of ['location', 'tus-resumable', 'upload-expires']) {
      expect(again.headers.get(name), name).toBe(first.headers.get(name));
    }
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    // The tus headers are what is asked: another length or file name under the key is not a replay.
    for (const changed of [{ 'upload-length': '11' }, { 'upload-metadata': 'filename Yi5wZGY=' }] as Record<
      string,
      string
    >[]) {
      const other = await post({ ...key, ...changed });
      expect(other.status, JSON.stringify(changed)).toBe(422);
      expect(await other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    }
    await fetch(`${quire.server.url}${first.headers.get('location')}`, {
      method: 'DELETE',
      headers: tus(quire.key),
    });
  });

  it('answers Quire’s auth errors as problem+json', async () => {
    const response = await fetch(`${quire.server.url}/api/v1/uploads`, {
      method: 'POST',
      headers: { ...TUS, 'upload-length': '10' },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'unauthenticated' });
    const readOnly = await quire.server.keyFor(quire.accountId, ['jobs:read']);
    const forbidden = await create(readOnly, 10);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({
      code: 'insufficient_scope',
      required_scope: 'jobs:write',
    });
  });

  it('discards a chunk whose Upload-Checksum does not match (460) and keeps one that does', async () => {
    const bytes = await readFile(small);
    const id = await createdId(quire.key, bytes.length);
    const wrong = createHash('sha256').update('something else').digest('base64');
    const refused = await patch(quire.key, id, 0, bytes, { 'upload-checksum': `sha256 ${wrong}` });
    expect(refused.status).toBe(460);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await refused.json()).toMatchObject({ code: 'checksum_mismatch' });
    expect((await offsetOf(quire.key, id)).headers.get('upload-offset')).toBe('0');
    const right = createHash('sha256').update(bytes).digest('base64');
    const stored = await patch(quire.key, id, 0, bytes, { 'upload-checksum': `sha256 ${right}` });
    expect(stored.status).toBe(204);
    expect(stored.headers.get('upload-offset')).toBe(String(bytes.length));
    const algorithm = await patch(quire.key, id, 0, bytes, { 'upload-checksum': 'md5 abc=' });
    expect(algorithm.status).toBe(400);
    const options = await fetch(`${quire.server.url}/api/v1/uploads`, { method: 'OPTIONS' });
    expect(options.headers.get('tus-extension')).toContain('checksum');
    expect(options.headers.get('tus-checksum-algorithm')).toBe('sha256');
  });

  it('refuses a chunked PATCH body longer than the upload with 413, storing none of it', async () => {
    const id = await createdId(quire.key, 10);
    // No Content-Length: only the body's own bytes can tell that it runs past the upload's end.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(6));
        controller.enqueue(new Uint8Array(6));
        controller.close();
      },
    });
    const response = await fetch(`${quire.server.url}/api/v1/uploads/${id}`, {
      method: 'PATCH',
      headers: tus(quire.key, { 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }),
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'payload_too_large' });
    expect((await offsetOf(quire.key, id)).headers.get('upload-offset')).toBe('0');
  });

  it('keeps an upload to its account: 404 on every tus method and at job creation for another', async () => {
    const bytes = await readFile(small);
    const id = await createdId(quire.key, bytes.length);
    expect((await patch(quire.key, id, 0, bytes)).status).toBe(204);
    const other = await quire.server.newAccount();
    expect((await offsetOf(other.key, id)).status).toBe(404);
    const patched = await patch(other.key, id, 0, bytes);
    expect(patched.status).toBe(404);
    expect(await patched.json()).toMatchObject({ code: 'not_found' });
    const removed = await fetch(`${quire.server.url}/api/v1/uploads/${id}`, {
      method: 'DELETE',
      headers: tus(other.key),
    });
    expect(removed.status).toBe(404);
    const job = await jobFrom(other.key, [['upload_id', id]], 'compress');
    expect(job.status).toBe(404);
    expect(await job.json()).toMatchObject({ code: 'not_found' });
    // The owner still has it, whole.
    expect((await offsetOf(quire.key, id)).headers.get('upload-offset')).toBe(String(bytes.length));
  });

  it('refuses an unfinished upload at job creation with 409 upload_incomplete', async () => {
    const bytes = await readFile(small);
    const id = await createdId(quire.key, bytes.length);
    expect((await patch(quire.key, id, 0, bytes.subarray(0, 100))).status).toBe(204);
    const stale = await patch(quire.key, id, 0, bytes.subarray(0, 100));
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ code: 'upload_offset_mismatch' });
    const response = await jobFrom(quire.key, [['upload_id', id]], 'compress');
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: 'upload_incomplete', upload_id: id });
  });

  it('sniffs an upload like any input: not a PDF is unsupported_file', async () => {
    const text = Buffer.from('just some text, not a document at all\n'.repeat(10));
    const id = await createdId(quire.key, text.length);
    expect((await patch(quire.key, id, 0, text)).status).toBe(204);
    const response = await jobFrom(quire.key, [['upload_id', id]], 'compress');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'unsupported_file' });
  });

  it('cuts a stalled chunk after the idle timeout, keeping what arrived; it holds an upload slot meanwhile', async () => {
    const id = await createdId(quire.key, 1000);
    const other = await createdId(quire.key, 10);
    const socket = net.connect(Number(new URL(quire.server.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    // Read the answer, so that the server's close reaches 'close' here.
    socket.resume();
    const closed = once(socket, 'close');
    socket.write(
      `PATCH /api/v1/uploads/${id} HTTP/1.1\r\nHost: quire\r\nTus-Resumable: 1.0.0\r\n` +
        `Authorization: Bearer ${quire.key}\r\nUpload-Offset: 0\r\n` +
        'Content-Type: application/offset+octet-stream\r\nContent-Length: 1000\r\n\r\n' +
        'x'.repeat(100),
    );
    // Well inside the 3 s idle timeout: the stalled chunk holds the account's one upload slot.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const second = await patch(quire.key, other, 0, Buffer.alloc(10));
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ code: 'concurrent_uploads_exceeded' });
    await closed;
    expect((await offsetOf(quire.key, id)).headers.get('upload-offset')).toBe('100');
    // The slot is free again: the refused chunk goes through now.
    const fresh = await createdId(quire.key, 10);
    expect((await patch(quire.key, fresh, 0, Buffer.alloc(10))).status).toBe(204);
    expect((await patch(quire.key, other, 0, Buffer.alloc(10))).status).toBe(204);
  });

  it('stores the body of a creation request (creation-with-upload) and answers its offset', async () => {
    const response = await fetch(`${quire.server.url}/api/v1/uploads`, {
      method: 'POST',
      headers: tus(quire.key, { 'upload-length': '10', 'content-type': 'application/offset+octet-stream' }),
      body: Buffer.from('0123456'),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    expect(response.headers.get('upload-offset')).toBe('7');
    const id = response.headers.get('location')!.split('/').pop()!;
    expect(await readFile(path.join(quire.server.dataDir, 'uploads', id), 'utf8')).toBe('0123456');
  });

  it('answers a method tus does not use with 405 and Allow', async () => {
    const id = await createdId(quire.key, 10);
    const response = await fetch(`${quire.server.url}/api/v1/uploads/${id}`, { headers: tus(quire.key) });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('PATCH, HEAD, DELETE');
  });

  it('terminates an upload: DELETE removes its bytes', async () => {
    const id = await createdId(quire.key, 10);
    expect(await storedUploads()).toContain(id);
    const removed = await fetch(`${quire.server.url}/api/v1/uploads/${id}`, {
      method: 'DELETE',
      headers: tus(quire.key),
    });
    expect(removed.status).toBe(204);
    expect(await storedUploads()).not.toContain(id);
    expect((await offsetOf(quire.key, id)).status).toBe(404);
  });
});

describe('a resumed upload whose old chunk still hangs', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The idle cut far away: only tus's lock drain (3 s) can end the old chunk.
    server = await startTestServer(
      { QUIRE_UPLOAD_IDLE_TIMEOUT_MS: '60000', QUIRE_UPLOAD_MAX_CONCURRENT_PER_ACCOUNT: '2' },
      { workers: false },
    );
  });
  afterAll(() => server.close());

  it('asks the old chunk to stop: its bytes so far are kept and HEAD answers their offset', async () => {
    const { key } = await server.newAccount();
    const created = await fetch(`${server.url}/api/v1/uploads`, {
      method: 'POST',
      headers: tus(key, { 'upload-length': '1000' }),
    });
    const id = created.headers.get('location')!.split('/').pop()!;
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.resume();
    socket.write(
      `PATCH /api/v1/uploads/${id} HTTP/1.1\r\nHost: quire\r\nTus-Resumable: 1.0.0\r\n` +
        `Authorization: Bearer ${key}\r\nUpload-Offset: 0\r\n` +
        'Content-Type: application/offset+octet-stream\r\nContent-Length: 1000\r\n\r\n' +
        'x'.repeat(100),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = Date.now();
      const head = await fetch(`${server.url}/api/v1/uploads/${id}`, { method: 'HEAD', headers: tus(key) });
      expect(head.status).toBe(200);
      expect(head.headers.get('upload-offset')).toBe('100');
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      socket.destroy();
    }
  });
});

describe('expiry before the sweep', () => {
  let slow: TestServer;
  beforeAll(async () => {
    // The sweep comes by only once a minute: the refusal cannot be the sweep's doing.
    slow = await startTestServer(
      { QUIRE_UPLOAD_EXPIRY_MS: '1000', QUIRE_SWEEP_INTERVAL_MS: '60000' },
      { workers: false },
    );
  });
  afterAll(() => slow.close());

  it('refuses a job naming an expired upload with 410 upload_expired before the sweep has run', async () => {
    const { key } = await slow.newAccount();
    const pdf = Buffer.from(
      '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
    );
    const response = await fetch(`${slow.url}/api/v1/uploads`, {
      method: 'POST',
      headers: tus(key, {
        'upload-length': String(pdf.length),
        'content-type': 'application/offset+octet-stream',
      }),
      body: pdf,
    });
    expect(response.status).toBe(201);
    const id = response.headers.get('location')!.split('/').pop()!;
    await new Promise((r) => setTimeout(r, 1_200));
    const form = new FormData();
    form.set('tool', 'info');
    form.set('upload_id', id);
    const refused = await fetch(`${slow.url}/api/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(refused.status).toBe(410);
    expect(await refused.json()).toMatchObject({ code: 'upload_expired', upload_id: id });
  });
});

describe('expiry', () => {
  let expiring: TestServer;
  beforeAll(async () => {
    expiring = await startTestServer({ QUIRE_UPLOAD_EXPIRY_MS: '1000' }, { workers: true });
  });
  afterAll(() => expiring.close());

  it('deletes an expired upload’s bytes and row at the sweep', async () => {
    const { key } = await expiring.newAccount();
    const response = await fetch(`${expiring.url}/api/v1/uploads`, {
      method: 'POST',
      headers: tus(key, { 'upload-length': '1000', 'content-type': 'application/offset+octet-stream' }),
      body: Buffer.alloc(400, 1),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('upload-expires')).toBeTruthy();
    const id = response.headers.get('location')!.split('/').pop()!;
    const dir = path.join(expiring.dataDir, 'uploads');
    expect(await readdir(dir)).toContain(id);
    await expect
      .poll(async () => (await readdir(dir)).filter((n) => n.startsWith(id)), { timeout: 10_000 })
      .toEqual([]);
    expect(await expiring.runtime.db.uploads.find(id)).toBeUndefined();
    const metrics = await (await fetch(`${expiring.url}/metrics`)).text();
    expect(metrics).toMatch(/quire_uploads_expired_total [1-9]/);
  });
});

describe('the large PDF the upload tests send', () => {
  it('is a valid one-page PDF that qpdf checks', async () => {
    const pdf = largePdf(3 * MiB + 7);
    const chunks: Buffer[] = [];
    for await (const chunk of pdf.stream as Readable) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    expect(bytes.length).toBe(3 * MiB + 7);
    expect(qpdfCheckPasses(toFile(bytes))).toBe(true);
  });
});
