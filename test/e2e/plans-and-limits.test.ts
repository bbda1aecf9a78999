// docs/api.md §5 over real HTTP: plans from a plans file, per-account rate limits with IETF
// RateLimit headers (parsed as structured fields), 429 and Retry-After, per-IP failed-auth limit,
// plan-specific upload limits in the 413 and in GET /api/v1/tools.
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseList } from 'structured-headers';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { startTestServer } from '../support/server.js';
import { useTestServer } from '../support/use-test-server.js';

/**
 * The limiter refills smoothly (GCRA): after a burst of 60 the free plan gets one request back per
 * second, so the test waits about a second, not a minute. A plan with a 2 s window, set through the
 * plans file, shows the window is configuration.
 */
const WINDOW_S = 60;
let free: Client;
let pro: Client;

const plansFile = path.join(os.tmpdir(), `quire-plans-${process.pid}.json`);
// Written before useTestServer's start below: hooks run in the order they are registered.
beforeAll(async () => {
  await writeFile(
    plansFile,
    JSON.stringify({
      free: { max_file_bytes: 100_000 },
      pro: { max_file_bytes: 1_000_000 },
      tiny: {
        requests_per_window: 2,
        window_seconds: 2,
        max_file_bytes: 1_000,
        files_per_job: 1,
        concurrent_jobs: 1,
        result_retention_ms: 60_000,
        max_pages: 10,
      },
    }),
  );
});
const quire = useTestServer({ QUIRE_PLANS_FILE: plansFile }, { workers: false });
beforeAll(async () => {
  free = await quire.clientOn('free');
  pro = await quire.clientOn('pro');
});

function rateHeaders(response: Response) {
  const [policy] = parseList(response.headers.get('ratelimit-policy') ?? '');
  const [state] = parseList(response.headers.get('ratelimit') ?? '');
  return {
    name: policy?.[0],
    q: policy?.[1].get('q'),
    w: policy?.[1].get('w'),
    stateName: state?.[0],
    r: state?.[1].get('r'),
    t: state?.[1].get('t'),
  };
}

/** A PDF-looking body of `size` bytes: sniffed as PDF, so only the size limit can refuse it. */
const pdfOfSize = (size: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(size - 9, 0x20)]);

describe('rate limits per account', () => {
  it('sends RateLimit-Policy and RateLimit as structured fields on keyed responses, errors included', async () => {
    const first = rateHeaders(await pro.fetch('/api/v1/tools'));
    expect(first).toMatchObject({ name: 'default', q: 600, w: 60, stateName: 'default', r: 599 });
    expect(first.t).toBeGreaterThan(0);
    const notFound = await pro.fetch('/api/v1/jobs/job_missing');
    expect(notFound.status).toBe(404);
    const after = rateHeaders(notFound);
    expect(after.q).toBe(600);
    // One more spent; the smooth refill may have given back one in between.
    expect(after.r).toBeGreaterThanOrEqual(598);
    expect(after.r).toBeLessThanOrEqual(599);
    // The temporary-link route needs no key, so it has no account limit to report.
    expect((await fetch(`${quire.server.url}/api/v1/files/nothing`)).headers.get('ratelimit')).toBeNull();
  });

  it('refuses the 61st request in the window with 429 and a Retry-After that is enough; pro is unaffected', async () => {
    let allowed = 0;
    let refused: Response | undefined;
    const started = Date.now();
    while (!refused && allowed < 80) {
      const response = await free.fetch('/api/v1/jobs?limit=1');
      if (response.status === 429) refused = response;
      else {
        expect(response.status).toBe(200);
        expect(rateHeaders(response)).toMatchObject({ q: 60, w: WINDOW_S });
        allowed++;
      }
    }
    // Exactly 60, plus the one request per second the bucket gives back while the loop runs (none
    // when the 61 requests take under a second, as they do on an idle machine).
    const refilled = Math.floor((Date.now() - started) / 1000);
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + refilled);
    expect(refused).toBeDefined();
    const retryAfter = Number(refused!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_S);
    const problem = (await refused!.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({
      status: 429,
      code: 'rate_limited',
      limit: 'requests',
      plan: 'free',
      quota: 60,
      window_seconds: WINDOW_S,
      higher_plan: 'pro',
      resets_at: expect.stringMatching(/Z$/),
    });
    expect(problem.detail).toMatch(/higher plan/);
    expect(rateHeaders(refused!)).toMatchObject({ r: 0 });

    const proResponse = await pro.fetch('/api/v1/jobs?limit=1');
    expect(proResponse.status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await free.fetch('/api/v1/jobs?limit=1')).status).toBe(200);
  });
});

describe('configured windows', () => {
  it('a plan from the plans file brings its own quota and window', async () => {
    const tiny = await quire.clientOn('tiny');
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await tiny.fetch('/api/v1/tools')).status);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await tiny.fetch('/api/v1/tools');
    expect(rateHeaders(refused)).toMatchObject({ q: 2, w: 2, r: 0 });
    await new Promise((resolve) => setTimeout(resolve, Number(refused.headers.get('retry-after')) * 1000));
    expect((await tiny.fetch('/api/v1/tools')).status).toBe(200);
  });
});

describe('plan limits on uploads', () => {
  // A fresh free account: the one above has spent its requests.
  beforeAll(async () => {
    free = await quire.clientOn('free');
  });

  it('GET /api/v1/tools shows each caller its own plan’s limits', async () => {
    const limitsOf = async (client: Client) =>
      ((await (await client.fetch('/api/v1/tools')).json()) as { limits: Record<string, unknown> }).limits;
    expect(await limitsOf(free)).toMatchObject({
      plan: 'free',
      max_file_bytes: 100_000,
      max_files_per_job: 10,
      concurrent_jobs: 2,
      requests_per_window: 60,
      window_seconds: WINDOW_S,
      result_retention_seconds: 3600,
    });
    expect(await limitsOf(pro)).toMatchObject({
      plan: 'pro',
      max_file_bytes: 1_000_000,
      max_files_per_job: 50,
    });
  });

  it('a file over the plan’s limit is 413 naming the limit and the plan; a pro key may send it', async () => {
    const file = { name: 'big.pdf', data: pdfOfSize(200_000) };
    const refused = await free.createJob({ tool: 'rotate', options: { angle: 90 }, files: [file] });
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({
      code: 'payload_too_large',
      limit_bytes: 100_000,
      plan: 'free',
    });
    const accepted = await pro.createJob({ tool: 'rotate', options: { angle: 90 }, files: [file] });
    expect(accepted.status, await accepted.clone().text()).toBe(201);
  });
});

describe('failed authentication per IP', () => {
  it('after too many failures the address gets 429 before any key is checked', async () => {
    const guarded = await startTestServer({ QUIRE_AUTH_FAILURES_PER_MIN: '3' }, { workers: false });
    try {
      const valid = new Client(guarded.url, (await guarded.newAccount()).key);
      const wrong = new Client(guarded.url, `qk_live_AAAAAAAA_${'x'.repeat(43)}`);
      for (let i = 0; i < 3; i++) expect((await wrong.fetch('/api/v1/tools')).status).toBe(401);
      const limited = await wrong.fetch('/api/v1/tools');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await limited.json()).toMatchObject({ code: 'rate_limited', limit: 'failed_authentication' });
      // Refused before the key check: even a valid key from this address waits.
      expect((await valid.fetch('/api/v1/tools')).status).toBe(429);
    } finally {
      await guarded.close();
    }
  });
});
