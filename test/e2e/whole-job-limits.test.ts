// docs/api.md §5, whole-job limits over real HTTP and real qpdf (issue 25, finding 2): chains whose
// steps multiply are refused at creation or stopped at the plan's number across all branches, with
// stable codes, within seconds, leaving no file in the work dir or the blob store.
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client, JobBody } from '../support/client.js';
import { buildPdf, healthy, stream } from '../support/hostile-pdf.js';
import { useTestServer } from '../support/use-test-server.js';

type Step = { tool: string; options?: Record<string, unknown> };
type Problem = { code: string; errors?: { pointer?: string }[] };

let free: Client;
let pro: Client;
let business: Client;

/** `copies` items of `item`: the `pages` tool's way to repeat pages. */
const repeat = (item: string, copies: number) => Array.from({ length: copies }, () => item).join(',');

/**
 * `pages` pages that all draw one shared image of `imageBytes` random bytes: small as a whole, but
 * every part split from it carries the image, so splitting multiplies bytes (issue 25's 5 MB → 1 GB).
 */
function sharedImagePdf(pages: number, imageBytes: number): Buffer {
  const first = 4;
  const kids = Array.from({ length: pages }, (_, i) => `${first + i} 0 R`).join(' ');
  const page = (num: number) => ({
    num,
    body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /Im1 3 0 R >> >> /Contents 1000 0 R >>',
  });
  const side = Math.ceil(Math.sqrt(imageBytes));
  return buildPdf([
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { num: 2, body: `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>` },
    {
      num: 3,
      body: stream(
        `/Type /XObject /Subtype /Image /Width ${side} /Height ${side} /BitsPerComponent 8 /ColorSpace /DeviceGray`,
        randomBytes(side * side),
      ),
    },
    ...Array.from({ length: pages }, (_, i) => page(first + i)),
    { num: 1000, body: stream('', 'q 200 0 0 200 0 0 cm /Im1 Do Q') },
  ]);
}

function stepsForm(steps: Step[], file: Buffer, field = 'file'): FormData {
  const form = new FormData();
  form.set('steps', JSON.stringify(steps));
  form.append(field, new Blob([file]), 'in.pdf');
  return form;
}

/**
 * Every file under the server's blob store and work dirs, but the empty file a work dir waiting for
 * the next job holds for its output (process/work-dir.ts, `.made-ahead`): no job's data.
 */
async function filesLeft(): Promise<string[]> {
  const under = async (dir: string) =>
    (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []))
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name));
  const madeAhead = async (file: string) =>
    path.basename(file) === '.made-ahead' && (await stat(file).catch(() => undefined))?.size === 0;
  const files = [
    ...(await under(path.join(quire.server.dataDir, 'files'))),
    ...(await under(path.join(quire.server.dataDir, 'tmp'))),
  ];
  const made = await Promise.all(files.map(madeAhead));
  return files.filter((_, i) => !made[i]);
}

// The free plan as shipped, but for a work-dir limit small enough to reach in a second of qpdf.
// Pro with one second of engine time, so a long chain reaches it at once.
const quire = useTestServer({
  QUIRE_PLAN_FREE_MAX_WORK_BYTES: String(48 * 1024 * 1024),
  QUIRE_PLAN_PRO_MAX_ENGINE_MS: '1000',
  // Business with a result of at most 32 MiB: a handful of 5 MB parts.
  QUIRE_PLAN_BUSINESS_MAX_OUTPUT_BYTES: String(32 * 1024 * 1024),
});
beforeAll(async () => {
  free = await quire.clientOn('free');
  pro = await quire.clientOn('pro');
  business = await quire.clientOn('business');
});

describe('whole-job limits', () => {
  it('refuses [pages ×50, split, pages ×50, split, pages ×50] on a one-page PDF at creation', async () => {
    const x50 = { tool: 'pages', options: { keep: repeat('1-z', 50) } };
    const steps = [x50, { tool: 'split' }, x50, { tool: 'split' }, x50];
    const started = Date.now();
    const response = await free.fetch('/api/v1/jobs', { method: 'POST', body: stepsForm(steps, healthy()) });
    expect(response.status).toBe(422);
    expect(((await response.json()) as Problem).code).toBe('limit_pages_exceeded');
    expect(Date.now() - started).toBeLessThan(5_000);
    // The same chain as a batch of two: refused whole, as each of its jobs would be.
    const batch = stepsForm(steps, healthy());
    batch.append('file', new Blob([healthy()]), 'second.pdf');
    const refused = await free.fetch('/api/v1/batches', { method: 'POST', body: batch });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as Problem).code).toBe('limit_pages_exceeded');
    expect(await filesLeft()).toEqual([]);
  });

  it('refuses split ranges that repeat a part, however the repeat is spelled', async () => {
    const ranges = Array.from({ length: 200 }, () => '1');
    for (const given of [ranges, ['1', ' 1', '1-1']]) {
      const options = { mode: 'ranges', ranges: given };
      const response = await free.fetch('/api/v1/jobs', {
        method: 'POST',
        body: stepsForm([{ tool: 'split', options }], healthy()),
      });
      expect(response.status).toBe(400);
      const problem = (await response.json()) as Problem;
      expect(problem.code).toBe('invalid_options');
      // The schema's uniqueItems names the array; the tool's own check names the repeat.
      expect(problem.errors?.[0]?.pointer).toMatch(/^\/steps\/0\/options\/ranges/);
    }
    expect(await filesLeft()).toEqual([]);
  });

  it('stops a chain whose pages pass the plan only across branches, with no file left', async () => {
    // From one page each step looks small (30 pages); the 10-page input's 10 branches make 300.
    const input = sharedImagePdf(10, 1_000);
    const steps = [{ tool: 'split' }, { tool: 'pages', options: { keep: repeat('1', 30) } }];
    const job = await runToEnd(steps, input);
    expect(job.error?.code).toBe('limit_pages_exceeded');
    expect(job.error?.message).toMatch(/across their branches/);
    expect(await filesLeft()).toEqual([]);
  });

  it('stops a split whose parts fill the work dir past the plan, within seconds, with no file left', async () => {
    // 40 parts of a 5 MB shared image: 200 MB if let run; the plan's work dir holds 48 MiB.
    const input = sharedImagePdf(40, 5_000_000);
    const started = Date.now();
    const job = await runToEnd([{ tool: 'split' }], input);
    expect(job.error?.code).toBe('job_limit_exceeded');
    expect(job.error?.message).toMatch(/\(work_bytes\)/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await filesLeft()).toEqual([]);
  });

  it('stops split ranges that are all distinct but each carry 5 MB once the parts pass the result limit', async () => {
    // Issue 25's 5 MB → 1 GB, with ranges no check can call repeats: 200 parts of 5 MB if let run.
    const ranges = Array.from({ length: 200 }, (_, i) => String(i + 1));
    const started = Date.now();
    const job = await runToEnd(
      [{ tool: 'split', options: { mode: 'ranges', ranges } }],
      sharedImagePdf(200, 5_000_000),
      business,
    );
    expect(job.error?.code).toBe('job_limit_exceeded');
    expect(job.error?.message).toMatch(/\(output_bytes\)/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await filesLeft()).toEqual([]);
  });

  it('stops a chain past the plan’s engine time across its branches', async () => {
    // 1,000 branches of three rotations: thousands of qpdf runs, each well under any engine timeout.
    const steps = [
      { tool: 'pages', options: { keep: repeat('1', 1_000) } },
      { tool: 'split' },
      ...Array.from({ length: 3 }, () => ({ tool: 'rotate', options: { angle: 90 } })),
    ];
    const started = Date.now();
    const job = await runToEnd(steps, healthy(), pro);
    expect(job.error?.code).toBe('job_limit_exceeded');
    expect(job.error?.message).toMatch(/\(engine_time\)/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await filesLeft()).toEqual([]);
  });
});

async function runToEnd(steps: Step[], input: Buffer, client = free): Promise<JobBody> {
  const response = await client.fetch('/api/v1/jobs', { method: 'POST', body: stepsForm(steps, input) });
  expect(response.status, await response.clone().text()).toBe(201);
  const job = await client.waitFor(((await response.json()) as JobBody).id, 60);
  // The inputs go once the job has ended; the sweeper retries what the runner could not delete.
  for (let i = 0; i < 50 && (await filesLeft()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  return job;
}
