// Reading a job over real HTTP (docs/api.md §2, §5): with local request state a GET writes nothing to
// the database (SQLite: PRAGMA data_version from another connection; PostgreSQL, with
// QUIRE_TEST_POSTGRES=1: no transaction id assigned), answers with a strong ETag and 304 on
// If-None-Match, and a key revoked through this process is refused by the very next request.
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalRateLimiter } from '../../src/store/local-rate-limiter.js';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { useTestServer } from '../support/use-test-server.js';

const READS = 200;

const quire = useTestServer({ QUIRE_RATE_LIMIT_SYNC_MS: '60000' }, { workers: false });
beforeAll(async () => {
  // No sync while the test reads: what the GETs themselves write is what is measured.
});

async function queuedJob(): Promise<JobBody> {
  return quire.client.submit({
    tool: 'rotate',
    options: { angle: 90 },
    files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
  });
}

interface DatabaseProbe {
  /** Something that changes whenever another connection commits a write to the database. */
  marker(): Promise<string>;
  /** The stored tat of a rate-limit bucket, undefined without a row. */
  storedTat(bucket: string): Promise<number | undefined>;
}

async function probeDatabase(): Promise<DatabaseProbe> {
  const url = quire.server.runtime.config.databaseUrl;
  if (url.startsWith('sqlite://')) {
    const raw = new BetterSqlite3(url.slice('sqlite://'.length), { readonly: true });
    const version = raw.prepare('PRAGMA data_version').pluck();
    const tat = raw.prepare('SELECT tat FROM rate_limits WHERE bucket = ?').pluck();
    return {
      marker: async () => String(version.get()),
      storedTat: async (bucket) => tat.get(bucket) as number | undefined,
    };
  }
  const pgClient = new pg.Client({ connectionString: url });
  await pgClient.connect();
  return {
    // xmax of the snapshot is the next transaction id: only a transaction that writes takes one.
    marker: async () =>
      (await pgClient.query<{ s: string }>('select txid_current_snapshot()::text as s')).rows[0]!.s,
    storedTat: async (bucket) =>
      (await pgClient.query<{ tat: number }>('select tat from rate_limits where bucket = $1', [bucket]))
        .rows[0]?.tat,
  };
}

describe('GET /api/v1/jobs/{id}', () => {
  it(`writes nothing over ${READS} reads; the rate limiter counted them and stores them at its sync`, async () => {
    const started = Date.now();
    const job = await queuedJob();
    const probe = await probeDatabase();
    const before = await probe.marker();
    let etag = '';
    for (let i = 0; i < READS; i++) {
      const response = await quire.client.fetch(`/api/v1/jobs/${job.id}`, {
        headers: i % 2 && etag ? { 'if-none-match': etag } : {},
      });
      expect([200, 304]).toContain(response.status);
      etag = response.headers.get('etag') ?? '';
      await response.arrayBuffer();
    }
    expect(await probe.marker()).toBe(before);
    // Counted all the same: in memory, until the limiter's sync writes the bucket.
    const bucket = `account:${quire.accountId}`;
    expect(await probe.storedTat(bucket)).toBeUndefined();
    await (quire.server.runtime.db.rateLimits as LocalRateLimiter).sync();
    expect(await probe.marker()).not.toBe(before);
    expect(await probe.storedTat(bucket)).toBeGreaterThan(started);
  });

  it('answers a strong ETag, 304 without a body for it, and a new ETag once the job changes', async () => {
    const job = await queuedJob();
    const first = await quire.client.fetch(`/api/v1/jobs/${job.id}`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const body = await first.text();
    const again = await quire.client.fetch(`/api/v1/jobs/${job.id}`);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe(body);

    const unchanged = await quire.client.fetch(`/api/v1/jobs/${job.id}`, {
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect(unchanged.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(unchanged.headers.get('x-request-id')).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(await unchanged.text()).toBe('');

    expect((await quire.client.fetch(`/api/v1/jobs/${job.id}/cancel`, { method: 'POST' })).status).toBe(200);
    const changed = await quire.client.fetch(`/api/v1/jobs/${job.id}`, {
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(((await changed.json()) as JobBody).status).toBe('canceled');
  });

  it('refuses a key revoked through the API on the next request, though it was just verified', async () => {
    const admin = new Client(quire.server.url, (await quire.server.newAccount()).key);
    const reader = await quire.server.keyFor(quire.accountId, ['jobs:read']);
    const keyId = reader.split('_')[2]!;
    const readerClient = new Client(quire.server.url, reader);
    expect((await readerClient.fetch('/api/v1/jobs')).status).toBe(200);
    const keys = (await (await admin.fetch(`/api/v1/accounts/${quire.accountId}/keys`)).json()) as {
      data: { id: string; key_id: string }[];
    };
    const id = keys.data.find((k) => k.key_id === keyId)!.id;
    expect(
      (await admin.fetch(`/api/v1/accounts/${quire.accountId}/keys/${id}`, { method: 'DELETE' })).status,
    ).toBe(204);
    expect((await readerClient.fetch('/api/v1/jobs')).status).toBe(401);
  });
});
