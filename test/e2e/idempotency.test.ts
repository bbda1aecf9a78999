// docs/api.md §4 over real HTTP and real SQLite: Idempotency-Key on POST /jobs and POST /jobs/{id}/cancel
// — one job per key under concurrency, byte-identical replay, 422 on reuse, refusals not stored.
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { useTestServer } from '../support/use-test-server.js';

const small = readFileSync(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf'));

const quire = useTestServer({}, { workers: false });
beforeAll(async () => {
  // No workers: jobs stay queued, so what is on disk is exactly what the requests stored.
});

/** A multipart body built by hand, so a test can hold a request open halfway through its upload. */
function multipart(fields: Record<string, string>, file: Buffer): { body: Buffer; type: string } {
  const boundary = `----quire${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

function post(key: string, pdf: Buffer, options = '{"angle":90}'): Promise<Response> {
  const { body, type } = multipart({ tool: 'rotate', options }, pdf);
  return quire.client.fetch('/api/v1/jobs', {
    method: 'POST',
    body,
    headers: { 'content-type': type, 'idempotency-key': key },
  });
}

async function jobCount(): Promise<number> {
  return (await quire.server.runtime.db.jobs.list(quire.accountId, { limit: 100 })).jobs.length;
}

/** Job directories holding stored inputs. */
async function storedJobDirs(): Promise<string[]> {
  return readdir(path.join(quire.server.dataDir, 'files', 'jobs')).catch(() => []);
}

describe('Idempotency-Key on POST /api/v1/jobs', () => {
  it('a second request while the first is still uploading gets 409 with Retry-After: 1; one job results', async () => {
    const before = await jobCount();
    const { body, type } = multipart({ tool: 'rotate', options: '{"angle":90}' }, small);
    let finish!: () => void;
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const half = body.length - 100;
    const slow = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(body.subarray(0, half));
        await held;
        controller.enqueue(body.subarray(half));
        controller.close();
      },
    });
    const first = quire.client.fetch('/api/v1/jobs', {
      method: 'POST',
      body: slow,
      headers: { 'content-type': type, 'idempotency-key': 'in-flight-1' },
      duplex: 'half',
    } as RequestInit);
    // Headers arrive at once and the key is claimed before the body is read; give that a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await post('in-flight-1', small);
    expect(second.status).toBe(409);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(await second.json()).toMatchObject({ code: 'idempotency_key_in_use', status: 409 });
    finish();
    expect((await first).status).toBe(201);
    expect(await jobCount()).toBe(before + 1);
  });

  it('simultaneous requests with one key create exactly one job', async () => {
    const before = await jobCount();
    const responses = await Promise.all(Array.from({ length: 6 }, () => post('burst-1', small)));
    const created = responses.filter((r) => r.status === 201 && !r.headers.get('idempotent-replayed'));
    expect(created).toHaveLength(1);
    for (const r of responses) expect([201, 409]).toContain(r.status);
    expect(await jobCount()).toBe(before + 1);
  });

  it('replays the identical 201 after completion; the replayed upload is removed from storage', async () => {
    const first = await post('replay-1', small);
    expect(first.status).toBe(201);
    const firstBytes = Buffer.from(await first.arrayBuffer());
    const dirs = await storedJobDirs();
    const count = await jobCount();

    const again = await post('replay-1', small);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(Buffer.from(await again.arrayBuffer()).equals(firstBytes)).toBe(true);
    expect(await jobCount()).toBe(count);
    expect(await storedJobDirs()).toEqual(dirs);
    // The quoted sf-string form names the same key.
    const quoted = await post('"replay-1"', small);
    expect(quoted.headers.get('idempotent-replayed')).toBe('true');
  });

  it('the same key with a different file is 422 idempotency_key_reused, and that upload is removed', async () => {
    expect((await post('reuse-1', small)).status).toBe(201);
    const dirs = await storedJobDirs();
    const other = Buffer.concat([small, Buffer.from('\n% another file\n')]);
    const response = await post('reuse-1', other);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await storedJobDirs()).toEqual(dirs);
    // Different options with the same file are a different request too.
    expect((await post('reuse-1', small, '{"angle":180}')).status).toBe(422);
  });

  it('a refused request is not stored: a 400, then the corrected request with the same key → 201', async () => {
    const bad = await post('fix-1', small, '{"angle":45}');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_options' });
    const fixed = await post('fix-1', small);
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a key is scoped to its account', async () => {
    const other = new Client(quire.server.url, (await quire.server.newAccount()).key);
    const mine = await post('shared-name', small);
    const { body, type } = multipart({ tool: 'rotate', options: '{"angle":90}' }, small);
    const theirs = await other.fetch('/api/v1/jobs', {
      method: 'POST',
      body,
      headers: { 'content-type': type, 'idempotency-key': 'shared-name' },
    });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.headers.get('location')).not.toBe(mine.headers.get('location'));
  });

  it('a malformed key is 400 invalid_idempotency_key', async () => {
    for (const key of ['x'.repeat(256), 'caf\u00e9', '"unterminated', '"ok";p=1']) {
      const response = await quire.client.fetch('/api/v1/jobs', {
        method: 'POST',
        body: await quire.client.form({ tool: 'rotate', files: [{ name: 'a.pdf', data: small }] }),
        headers: { 'idempotency-key': key },
      });
      expect(response.status, key).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_idempotency_key' });
    }
  });
});

describe('Idempotency-Key on POST /api/v1/jobs/{id}/cancel', () => {
  it('replays the first cancel instead of answering 409 for the now-terminal job', async () => {
    const created = (await (await post('to-cancel', small)).json()) as { id: string };
    const cancel = () =>
      quire.client.fetch(`/api/v1/jobs/${created.id}/cancel`, {
        method: 'POST',
        headers: { 'idempotency-key': 'cancel-1' },
      });
    const first = await cancel();
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const again = await cancel();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    // Without the key the same call is a new request, and the job is terminal now.
    expect((await quire.client.fetch(`/api/v1/jobs/${created.id}/cancel`, { method: 'POST' })).status).toBe(
      409,
    );
  });
});
