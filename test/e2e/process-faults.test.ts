// Crash safety with the real CLI: kill -9 of the whole process group mid-job, restart, the job is
// picked up after its lease expires; three stalls end in worker_lost. Engine faults over HTTP with
// the fake engine registered like the real ones: a cancel kills the engine and its grandchild, a hang
// ends in `timeout`, crashes and garbage end in named errors, and nothing the engine printed is logged.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashableServe } from '../support/cli-process.js';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { fakeEngine } from '../support/fake-engine/index.js';
import { fakeTool } from '../support/fake-engine/tool.js';
import { pageCount, qpdfCheckPasses, toFile } from '../support/pdf.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** The fault-injection tier: the fake engine and the tool that drives it, test-only. */
const FAKE = { engines: [fakeEngine], tools: [fakeTool] };
const ONE_PAGE = corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf');
const fakeJob = (behaviour: string) => ({ tool: 'fake', options: { behaviour }, files: [ONE_PAGE] });
/** The fake engine's processes (leader and grandchild) name the job's files under the data dir. */
const fakeProcesses = (dataDir: string) =>
  processesUnder(dataDir).filter((p) => p.includes('fake-engine.sh'));

/** A job that keeps Ghostscript busy for several seconds on this machine. */
const slowJob = {
  tool: 'compress',
  options: { level: 'high', grayscale: true },
  files: [corpusFile('pdfjs__freeculture.pdf')],
};

async function waitForStatus(
  client: Client,
  id: string,
  status: string,
  timeoutMs = 30_000,
  attempt = 1,
): Promise<JobBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await (await client.fetch(`/api/v1/jobs/${id}`)).json()) as JobBody;
    if (job.status === status && Number(job.attempts) >= attempt) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} stayed ${job.status}, wanted ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function processesUnder(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}

describe('worker crashes', () => {
  const serve = crashableServe('crash');
  beforeAll(() => serve.setUp());
  afterAll(() => serve.tearDown());

  it('picks a job up again after kill -9 of the process group and completes it', async () => {
    await serve.start();
    const client = new Client(serve.url, await serve.key());
    const job = await client.submit(slowJob);
    await waitForStatus(client, job.id, 'processing');
    await serve.kill9();
    expect(processesUnder(serve.dataDir)).toEqual([]); // Ghostscript died with its group

    await serve.start();
    const done = await client.waitFor(job.id, 180);
    expect(done.status).toBe('succeeded');
    const pdf = toFile((await client.download(job.id)).body);
    expect(pageCount(pdf)).toBe(352);
    expect(qpdfCheckPasses(pdf)).toBe(true);
  }, 240_000);

  it('fails a job with worker_lost after it stalls three times', async () => {
    const client = new Client(serve.url, await serve.key());
    const job = await client.submit(slowJob);
    for (let stall = 1; stall <= 3; stall++) {
      // A fresh claim, not the dead worker's stale 'processing' before its lease expires.
      await waitForStatus(client, job.id, 'processing', 60_000, stall);
      await serve.kill9();
      await serve.start();
    }
    const done = await client.waitFor(job.id, 60);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ code: 'worker_lost', retryable: true });
  }, 240_000);
});

describe('cancel', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ QUIRE_WORKER_CONCURRENCY: '1' }, { extras: FAKE });
  });
  afterAll(() => server.close());

  it('kills the running engine and its grandchild and ends the job canceled', async () => {
    const client = new Client(server.url, (await server.newAccount()).key);
    const job = await client.submit(fakeJob('hang'));
    await waitForStatus(client, job.id, 'processing');
    const deadline = Date.now() + 20_000;
    while (fakeProcesses(server.dataDir).length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(fakeProcesses(server.dataDir)).toHaveLength(2);

    const response = await client.fetch(`/api/v1/jobs/${job.id}/cancel`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as JobBody).status).toBe('canceled');
    const gone = Date.now() + 2_000;
    while (processesUnder(server.dataDir).length > 0 && Date.now() < gone)
      await new Promise((r) => setTimeout(r, 50));
    expect(processesUnder(server.dataDir)).toEqual([]);
    // Nothing is written after the cancel: the job stays canceled with no result.
    await new Promise((r) => setTimeout(r, 500));
    const after = (await (await client.fetch(`/api/v1/jobs/${job.id}`)).json()) as JobBody;
    expect(after.status).toBe('canceled');
    expect(after.result).toBeUndefined();
  }, 60_000);
});

describe('engine faults over HTTP', () => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    // A short engine time limit: a hang costs three seconds, and an 8 MB stderr flood still drains
    // within it on a loaded 2-core machine.
    server = await startTestServer({ QUIRE_ENGINE_TIMEOUT_MS: '3000' }, { extras: FAKE });
    client = new Client(server.url, (await server.newAccount()).key);
  });
  afterAll(() => server.close());

  it('a fake engine that copies its input succeeds with that one page', async () => {
    const done = await client.run(fakeJob('copy'));
    expect(done.status).toBe('succeeded');
    const pdf = toFile((await client.download(done.id)).body);
    expect(pageCount(pdf)).toBe(1);
  });

  const faults: [string, string][] = [
    ['hang', 'timeout'],
    ['crash', 'engine_failed'],
    ['sigkill', 'engine_failed'],
    ['damaged', 'pdf_corrupt'],
    ['huge-stderr', 'pdf_corrupt'],
    ['garbage', 'pdf_corrupt'],
  ];
  it.each(faults)(
    'an engine that does %s fails the job with %s and leaves no process behind',
    async (behaviour, code) => {
      const done = await client.run(fakeJob(behaviour));
      expect(done.status).toBe('failed');
      expect(done.error).toMatchObject({ code });
      expect(done.result).toBeUndefined();
      expect(fakeProcesses(server.dataDir)).toEqual([]);
    },
  );

  it('logs nothing the engine printed', () => {
    const logged = server.logs.join('\n');
    expect(logged).not.toContain('fake: ');
    expect(logged).not.toContain('the same complaint again');
  });
});
