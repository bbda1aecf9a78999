// Scale-out with the real CLI: several `quire api` and `quire worker` processes on one PostgreSQL
// database (QUIRE_TEST_BACKEND=sqlite: one shared SQLite file instead) and one S3 bucket. A job is the
// same job whichever API process is asked; a cancel through one API stops the engine on a worker; and
// under kill -9 and SIGSTOP of workers no job is lost, none completes twice, every result is sound
// and nothing is left in the bucket once jobs are deleted or their results expire.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import {
  descendants,
  type ProcessRow,
  processesMentioning,
  type QuireCluster,
  startCluster,
} from '../support/cluster.js';
import { corpusFile } from '../support/corpus.js';
import { CHEAP_JOBS, type Expected, resultProblems } from '../support/job-mix.js';
import { pageCount, qpdfCheckPasses, rotations, toFile } from '../support/pdf.js';
import { type PgTestServer, startPostgresServer } from '../support/pg-server.js';
import { type S3TestServer, startS3Server } from '../support/s3-server.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

const backend = process.env.QUIRE_TEST_BACKEND === 'sqlite' ? 'sqlite' : 'postgres';
const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let s3: S3TestServer;
let pg: PgTestServer | undefined;
const scratch: string[] = [];

beforeAll(async () => {
  s3 = await startS3Server();
}, 60_000);
afterAll(async () => {
  await s3?.stop();
  await pg?.stop();
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `quire-${name}-`));
  scratch.push(dir);
  return dir;
}

/** A fresh, empty database every process of one cluster shares. */
async function databaseUrl(): Promise<string> {
  if (backend === 'sqlite') return `sqlite://${path.join(await tempDir('scale-db'), 'quire.db')}`;
  pg ??= await startPostgresServer();
  return pg.createDatabase();
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

async function getJob(client: Client, id: string): Promise<JobBody> {
  return (await (await client.fetch(`/api/v1/jobs/${id}`)).json()) as JobBody;
}

/** A job that keeps Ghostscript busy for several seconds on this machine (as in process-faults). */
const slowJob = {
  tool: 'compress',
  options: { level: 'high', grayscale: true },
  files: [corpusFile('pdfjs__freeculture.pdf')],
};

/**
 * The worker's engines: they lead their own process groups, but are still below it in the tree. Not
 * its Node processes (the worker, its spawner) nor the qpdf forkserver the spawner keeps (a child of
 * a Node process); the forkserver's own children are runs.
 */
const enginesOf = (pid: number) => {
  const all = descendants(pid);
  const node = new Set(all.filter((p) => p.args.startsWith(process.execPath)).map((p) => p.pid));
  // Not engines: the qpdf forkserver (the spawner's child) and its spare, which waits in the
  // forkserver's process group for the next run (a run leads a group of its own).
  const forkServer = (p: ProcessRow) => p.args.includes('quire-qpdf-forkserver');
  return all.filter((p) => !node.has(p.pid) && !(forkServer(p) && (node.has(p.ppid) || p.pgid !== p.pid)));
};

describe.each(['s3', 'file'] as const)('two API processes and a worker, %s storage', (storage) => {
  let cluster: QuireCluster;
  let one: Client;
  let two: Client;

  beforeAll(async () => {
    cluster = await startCluster({
      databaseUrl: await databaseUrl(),
      storageUrl:
        storage === 's3'
          ? s3.storageUrl(`cross-${Date.now()}`)
          : `file://${path.join(await tempDir('scale-files'), 'files')}`,
      apis: 2,
      workers: 1,
      env: {
        ...s3.env,
        QUIRE_WORKER_CONCURRENCY: '1',
        // On PostgreSQL the idle worker effectively never polls: only a NOTIFY can wake it in time.
        ...(backend === 'postgres' ? { QUIRE_WORKER_POLL_MS: '60000' } : {}),
      },
    });
    [one, two] = cluster.apis.map((api) => new Client(api.url, cluster.key)) as [Client, Client];
  }, 90_000);
  afterAll(() => cluster?.stop());

  it('serves a job created through one API process, and its result, through the other', async () => {
    const created = await one.submit({
      tool: 'rotate',
      options: { angle: 90 },
      files: [corpusFile('pypdf-samples__pdflatex-4-pages.pdf')],
    });
    const done = await two.waitFor(created.id, 60);
    expect(done.status, cluster.output()).toBe('succeeded');
    expect(await getJob(one, created.id)).toEqual(done);

    const { response, body } = await two.download(created.id);
    expect(response.status).toBe(200);
    const file = toFile(body);
    expect(qpdfCheckPasses(file)).toBe(true);
    expect(pageCount(file)).toBe(4);
    expect(rotations(file)).toEqual([90, 90, 90, 90]);

    // A link made by API 1 works at API 2: presigned by S3, or signed with the shared secret.
    const link = (await (
      await one.fetch(`/api/v1/jobs/${created.id}/download`, { headers: { accept: 'application/json' } })
    ).json()) as { url: string };
    if (storage === 'file') expect(link.url).toMatch(/^\/api\/v1\/files\//);
    const elsewhere = await fetch(new URL(link.url, cluster.apis[1]!.url));
    expect(elsewhere.status).toBe(200);
    expect(Buffer.from(await elsewhere.arrayBuffer()).equals(body)).toBe(true);
  }, 90_000);

  it('one Idempotency-Key means one job, whichever API process each retry reaches', async () => {
    const input = {
      tool: 'rotate',
      options: { angle: 270 },
      files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
    };
    const headers = { 'Idempotency-Key': `scale-${Date.now()}` };
    // The same request at the same moment through both processes: one creates, the other either
    // waits its turn (409 in flight) or replays the creation.
    const [a, b] = (await Promise.all(
      [one, two].map(async (c) =>
        c.fetch('/api/v1/jobs', { method: 'POST', body: await c.form(input), headers }),
      ),
    )) as [Response, Response];
    const statuses = [a.status, b.status].sort();
    expect([
      [201, 201],
      [201, 409],
    ]).toContainEqual(statuses);
    const first = (await (a.status === 201 ? a : b).json()) as JobBody;
    // Retried later through each process: the stored answer, byte for byte, marked as a replay.
    for (const client of [one, two]) {
      const replay = await client.fetch('/api/v1/jobs', {
        method: 'POST',
        body: await client.form(input),
        headers,
      });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(((await replay.json()) as JobBody).id).toBe(first.id);
    }
    if (statuses.every((status) => status === 201))
      expect(((await (a.status === 201 ? b : a).json()) as JobBody).id).toBe(first.id);
    // Only one job exists for the key.
    const listed = (await (await one.fetch('/api/v1/jobs?tool=rotate&limit=100')).json()) as {
      data: JobBody[];
    };
    expect(listed.data.filter((j) => (j.options as { angle?: number }).angle === 270)).toHaveLength(1);
  }, 60_000);

  it('a plan’s request limit holds across both API processes together', async () => {
    // A fresh account on the free plan (60 requests a minute), through the accounts API.
    const account = (await (
      await one.fetch('/api/v1/accounts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'limited', plan: 'free' }),
      })
    ).json()) as { id: string };
    const created = (await (
      await one.fetch(`/api/v1/accounts/${account.id}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'limited', scopes: ['jobs:read'] }),
      })
    ).json()) as { key: string };
    const clients = cluster.apis.map((api) => new Client(api.url, created.key));
    const statuses = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        clients[i % 2]!.fetch('/api/v1/jobs?limit=1').then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  }, 60_000);

  it.runIf(backend === 'postgres')(
    'wakes the idle worker at once when another process creates a job (LISTEN/NOTIFY)',
    async () => {
      // Let the worker go idle (its next poll is a minute away), then create through API 2: only
      // API 2's NOTIFY can wake it within the bound.
      await sleep(1_500);
      const started = Date.now();
      const created = await two.submit({
        tool: 'rotate',
        options: { angle: 180 },
        files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
      });
      const done = await one.waitFor(created.id, 30);
      expect(done.status).toBe('succeeded');
      expect(Date.now() - started, 'create → succeeded seen through the other API').toBeLessThan(5_000);
    },
    60_000,
  );

  it('stops the engine on the worker within 2 s of a cancel through the other API process', async () => {
    const worker = cluster.workers[0]!;
    const job = await one.submit(slowJob);
    await until('Ghostscript on the worker', () => enginesOf(worker.cli.child.pid!).length > 0, 30_000);
    expect((await getJob(two, job.id)).status).toBe('processing');

    const response = await two.fetch(`/api/v1/jobs/${job.id}/cancel`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as JobBody).status).toBe('canceled');
    const canceledAt = Date.now();
    await until('the engine to go', () => enginesOf(worker.cli.child.pid!).length === 0, 5_000);
    expect(Date.now() - canceledAt).toBeLessThan(2_000);

    // Nothing is written after the cancel, whichever process is asked.
    await sleep(1_000);
    for (const client of [one, two]) {
      const after = await getJob(client, job.id);
      expect(after.status).toBe('canceled');
      expect(after.result).toBeUndefined();
    }
    expect((await one.fetch(`/api/v1/jobs/${job.id}/download`)).status).toBe(409);
  }, 90_000);
});

const JOBS = 300;
const DELETES = 30;
const SUBMIT_CONCURRENCY = 8;
/** Short, so a killed or paused worker's jobs go back to the queue within a few seconds. */
const LEASE_MS = 3_000;
/** Long enough to fetch every result twice as it completes; short enough to wait out in the test. */
const RETENTION_MS = 30_000;
/** Past the lease and the sweep after it, with time for another worker to redo the job. */
const PAUSE_MS = LEASE_MS + 3_000;
/** A worker this long up has probed its engines (each probe may take up to 5 s). */
const SETTLED_MS = 10_000;
/** The chaos goes on this long after the last job is submitted. */
const CHAOS_AFTER_SUBMIT_MS = 15_000;

/**
 * One job in this many keeps Ghostscript busy for seconds: cheap jobs alone end so fast on a quiet
 * machine that 11 kills and 3 pauses once all landed on idle workers, and nothing ran again.
 */
const SLOW_EVERY = 60;
const SLOW_CHAOS_JOB = { input: slowJob, expected: { type: 'pdf', pages: 352 } } as const;

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/** Runs `task` over `items` with at most `limit` at once. */
async function eachLimit<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await task(items[next++] as T);
    }),
  );
}

/**
 * Every 2–4 s a random worker's whole process group is killed and restarted at once. On PostgreSQL,
 * every 5–8 s another worker is also stopped past its lease and then continued: its engines are in
 * their own groups and run on, so it wakes with work done for a job another worker has taken over
 * meanwhile, and must write nothing, neither to the job nor to the blob store.
 */
function startChaos(cluster: QuireCluster) {
  const chaos = { kills: 0, pauses: 0, log: [] as string[], stopAt: Number.POSITIVE_INFINITY };
  const note = (what: string) => chaos.log.push(`${new Date().toISOString()} ${what}`);
  const name = (worker: QuireCluster['workers'][number]) =>
    `worker-${cluster.workers.indexOf(worker) + 1} (pid ${worker.cli.child.pid})`;
  // The worker each loop is acting on, so that the other leaves it alone meanwhile.
  let paused: QuireCluster['workers'][number] | undefined;
  let killing: QuireCluster['workers'][number] | undefined;
  const every = async (minMs: number, maxMs: number, act: () => Promise<void>) => {
    for (;;) {
      await sleep(minMs + Math.random() * (maxMs - minMs));
      if (Date.now() > chaos.stopAt) return;
      await act();
    }
  };
  const kills = every(2_000, 4_000, async () => {
    const worker = pick(cluster.workers.filter((w) => w !== paused));
    killing = worker;
    note(`kill -9 ${name(worker)}`);
    await worker.cli.kill9();
    worker.restart();
    killing = undefined;
    chaos.kills++;
  });
  const pauses =
    backend === 'postgres'
      ? every(5_000, 8_000, async () => {
          // Not one still starting: its engine probes would time out while it is stopped, and it
          // would run with its tools marked unavailable (a separate problem from the one tested here).
          const settled = cluster.workers.filter(
            (w) => w !== killing && Date.now() - w.startedAt > SETTLED_MS,
          );
          if (settled.length === 0) return;
          const worker = pick(settled);
          paused = worker;
          note(`SIGSTOP ${name(worker)}`);
          process.kill(-worker.cli.child.pid!, 'SIGSTOP');
          await sleep(PAUSE_MS);
          note(`SIGCONT ${name(worker)}`);
          process.kill(-worker.cli.child.pid!, 'SIGCONT');
          paused = undefined;
          chaos.pauses++;
        })
      : // With SQLite a stopped process may hold the one write lock, and the others fail with SQLITE_BUSY.
        Promise.resolve();
  const done = Promise.all([kills, pauses]);
  return Object.assign(chaos, {
    /** Ends the chaos `afterMs` from now; resolves once the last kill or pause is over. */
    stop: (afterMs: number) => {
      chaos.stopAt = Date.now() + afterMs;
      return done;
    },
  });
}

/**
 * Watches the job list and fetches each result as soon as its job succeeds, long before it expires:
 * downloaded through both API processes, the same bytes, the size the job states, and sound. The
 * fetch is what must beat the retention; the soundness checks (qpdf runs, slow with every core busy)
 * work through the fetched bytes afterwards, on their own loops.
 */
class ResultWatcher {
  readonly terminal = new Map<string, JobBody>();
  readonly verified = new Set<string>();
  private readonly queue: JobBody[] = [];
  private readonly fetched: Array<{ job: JobBody; body: Buffer }> = [];
  private submitted = false;

  constructor(
    private readonly clients: Client[],
    private readonly expected: Map<string, Expected>,
    private readonly deleted: Set<string>,
    private readonly problems: string[],
  ) {}

  /** Resolves once every job submitted (after `allSubmitted`) and not deleted is terminal and checked. */
  async run(deadlineMs: number): Promise<void> {
    let scanning = true;
    const scanner = this.scan(Date.now() + deadlineMs).finally(() => {
      scanning = false;
    });
    let fetching = 8;
    const fetchers = Array.from({ length: fetching }, async () => {
      while (scanning || this.queue.length > 0) {
        const job = this.queue.shift();
        if (job && this.expected.has(job.id)) await this.fetch(job);
        else {
          // Listed before its submission's response arrived: checked once that is in.
          if (job) this.queue.push(job);
          await sleep(50);
        }
      }
      fetching--;
    });
    const verifiers = Array.from({ length: 2 }, async () => {
      while (fetching > 0 || this.fetched.length > 0) {
        const next = this.fetched.shift();
        if (next) await this.verify(next.job, next.body);
        else await sleep(50);
      }
    });
    await Promise.all([scanner, ...fetchers, ...verifiers]);
  }

  allSubmitted(): void {
    this.submitted = true;
  }

  private allTerminal(): boolean {
    return (
      this.submitted && [...this.expected.keys()].every((id) => this.deleted.has(id) || this.terminal.has(id))
    );
  }

  private async scan(deadline: number): Promise<void> {
    for (let round = 0; !this.allTerminal(); round++) {
      if (Date.now() > deadline) {
        this.problems.push('not every job became terminal in time');
        return;
      }
      for (const job of await listJobs(this.clients[round % this.clients.length]!)) {
        if (!TERMINAL.has(job.status) || this.terminal.has(job.id)) continue;
        this.terminal.set(job.id, job);
        if (job.status === 'succeeded' && !this.deleted.has(job.id)) this.queue.push(job);
      }
      await sleep(500);
    }
  }

  private async fetch(job: JobBody): Promise<void> {
    const [a, b] = (await Promise.all(this.clients.map((c) => fetchResult(c, job.id)))) as [Fetched, Fetched];
    if (this.deleted.has(job.id)) return; // deleted meanwhile: 404 or 410 are right
    const problem = (what: string) => this.problems.push(`${job.id} (${job.tool}): ${what}`);
    if (a.status !== 200 || b.status !== 200) {
      problem(`result download answered ${a.status} / ${b.status}`);
      return;
    }
    if (!a.body.equals(b.body)) problem('the two API processes serve different bytes');
    this.fetched.push({ job, body: a.body });
  }

  private async verify(job: JobBody, body: Buffer): Promise<void> {
    const problem = (what: string) => this.problems.push(`${job.id} (${job.tool}): ${what}`);
    if (body.length !== job.result!.size)
      problem(`result is ${body.length} bytes, the job says ${job.result!.size}`);
    for (const p of await resultProblems(body, this.expected.get(job.id)!)) problem(p);
    this.verified.add(job.id);
  }
}

type Fetched = { status: number; body: Buffer };

/** Follows the download link; the status of whichever step failed, else 200 and the bytes. */
async function fetchResult(client: Client, id: string): Promise<Fetched> {
  const redirect = await client.fetch(`/api/v1/jobs/${id}/download`);
  if (redirect.status !== 302) return { status: redirect.status, body: Buffer.alloc(0) };
  const response = await fetch(new URL(redirect.headers.get('location')!, client.baseUrl));
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

async function listJobs(client: Client): Promise<JobBody[]> {
  const all: JobBody[] = [];
  for (let after = ''; ; ) {
    const page = (await (
      await client.fetch(`/api/v1/jobs?limit=100${after && `&starting_after=${after}`}`)
    ).json()) as { data: JobBody[]; has_more: boolean };
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
    after = page.data.at(-1)!.id;
  }
}

/** Distinct terminal events per job (deliveries are at least once: deduplicated on webhook-id). */
function terminalEvents(receiver: Receiver): Map<string, Map<string, { type: string; size?: number }>> {
  const byJob = new Map<string, Map<string, { type: string; size?: number }>>();
  for (const delivery of receiver.received) {
    const event = JSON.parse(delivery.body.toString('utf8')) as { type: string; data: JobBody };
    const events = byJob.get(event.data.id) ?? new Map();
    events.set(delivery.id, { type: event.type, size: event.data.result?.size });
    byJob.set(event.data.id, events);
  }
  return byJob;
}

/**
 * A busy loop on each core for the length of the run: CI must pass with both cores busy, so the
 * chaos runs on a machine where every process of the cluster waits for its turn on a core.
 */
function busyCores(): { stop(): void } {
  const loops: ChildProcess[] = Array.from({ length: os.availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
  );
  return {
    stop: () => {
      for (const loop of loops) loop.kill('SIGKILL');
    },
  };
}

/** The problems, what the chaos did, and the log lines of the jobs named and every error. */
function failureReport(problems: string[], chaosLog: string[], output: string): string {
  const ids = new Set(problems.flatMap((p) => p.match(/job_[0-9A-Z]+/g) ?? []));
  const lines = output.split('\n').filter((line) => {
    const named = [...ids].some((id) => line.includes(id));
    return named || /"level":"(error|fatal)"/.test(line) || (ids.size === 0 && /"level":"warn"/.test(line));
  });
  const time = (line: string) => /"time":"([^"]+)"/.exec(line)?.[1] ?? '';
  lines.sort((a, b) => time(a).localeCompare(time(b)));
  return [...problems, '--- chaos ---', ...chaosLog, '--- logs ---', ...lines.slice(-200)].join('\n');
}

describe('chaos: two API processes, three workers killed and paused at random', () => {
  let cluster: QuireCluster;
  let clients: Client[];
  let receiver: Receiver;
  let busy: { stop(): void } | undefined;
  const prefix = `chaos-${Date.now()}`;

  beforeAll(async () => {
    receiver = await startReceiver();
    cluster = await startCluster({
      databaseUrl: await databaseUrl(),
      storageUrl: s3.storageUrl(prefix),
      apis: 2,
      workers: 3,
      env: {
        ...s3.env,
        QUIRE_WORKER_CONCURRENCY: '2',
        QUIRE_JOB_LEASE_MS: String(LEASE_MS),
        // Stalls here come from the test's kills and pauses, not from broken jobs: never worker_lost.
        QUIRE_JOB_MAX_STALLS: '50',
        QUIRE_RESULT_RETENTION_MS: String(RETENTION_MS),
        QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
        QUIRE_WEBHOOK_RETRY_SCHEDULE_MS: '0,250,500,1000,2000,4000,8000,16000',
        QUIRE_WEBHOOK_POLL_MS: '100',
        // 'job finished' and 'job stopped without writing' lines, to explain a failure.
        QUIRE_LOG_LEVEL: 'info',
      },
    });
    clients = cluster.apis.map((api) => new Client(api.url, cluster.key));
    const registered = await clients[0]!.fetch('/api/v1/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['job.succeeded', 'job.failed', 'job.canceled'] }),
    });
    expect(registered.status, await registered.clone().text()).toBe(201);
    receiver.secrets = [((await registered.json()) as { secret: string }).secret];
  }, 90_000);
  afterAll(async () => {
    busy?.stop();
    await cluster?.stop();
    await receiver?.close();
  });

  it('loses no job, completes none twice, serves sound results and leaves an empty bucket, with every core busy', async () => {
    busy = busyCores();
    const started = Date.now();
    const problems: string[] = [];
    const expected = new Map<string, Expected>();
    const deleted = new Set<string>();
    const deleteAt = new Set<number>();
    while (deleteAt.size < DELETES) deleteAt.add(Math.floor(Math.random() * JOBS));
    const deletes: Promise<void>[] = [];
    const chaos = startChaos(cluster);
    const watcher = new ResultWatcher(clients, expected, deleted, problems);
    const watching = watcher.run(180_000);

    // Submitted alternately through the two API processes; some deleted while queued or running,
    // some after they end.
    await eachLimit(
      Array.from({ length: JOBS }, (_, i) => i),
      SUBMIT_CONCURRENCY,
      async (i) => {
        const job = i % SLOW_EVERY === 0 ? SLOW_CHAOS_JOB : CHEAP_JOBS[i % CHEAP_JOBS.length]!;
        const response = await clients[i % 2]!.createJob(job.input);
        if (response.status !== 201) {
          problems.push(`submission ${i} answered ${response.status}: ${await response.text()}`);
          return;
        }
        const { id } = (await response.json()) as JobBody;
        expected.set(id, job.expected);
        if (!deleteAt.has(i)) return;
        const deleting = async () => {
          deleted.add(id);
          const answer = await pick(clients).fetch(`/api/v1/jobs/${id}`, { method: 'DELETE' });
          if (answer.status !== 204) problems.push(`DELETE ${id} answered ${answer.status}`);
        };
        deletes.push(sleep(Math.random() * 8_000).then(deleting));
      },
    );
    const submitSeconds = (Date.now() - started) / 1000;
    watcher.allSubmitted();
    await Promise.all([...deletes, chaos.stop(CHAOS_AFTER_SUBMIT_MS), watching]);
    const terminalSeconds = (Date.now() - started) / 1000;
    busy.stop();

    // None lost: every job answers, deleted ones 404, the rest succeeded with the result checked.
    const finals = new Map<string, JobBody>();
    await eachLimit([...expected.keys()], 8, async (id) => {
      const response = await pick(clients).fetch(`/api/v1/jobs/${id}`);
      if (deleted.has(id)) {
        if (response.status !== 404) problems.push(`deleted ${id} answers ${response.status}`);
        return;
      }
      if (response.status !== 200) {
        problems.push(`${id} answers ${response.status}: lost`);
        return;
      }
      const job = (await response.json()) as JobBody;
      finals.set(id, job);
      if (job.status !== 'succeeded') {
        problems.push(`${id} (${job.tool}) ended ${job.status} ${JSON.stringify(job.error ?? {})}`);
      } else if (!watcher.verified.has(id)) {
        problems.push(`${id} (${job.tool}) succeeded but its result was never checked`);
      } else if (job.result?.size !== watcher.terminal.get(id)?.result?.size) {
        problems.push(`${id}: result size changed after the job ended`);
      }
    });

    // Completed once: exactly one terminal event per job, of the job's final status and result.
    const live = [...finals.values()];
    await until(
      'a terminal webhook for every job',
      () => {
        const events = terminalEvents(receiver);
        return live.every((j) => events.has(j.id));
      },
      30_000,
    ).catch((error: Error) => problems.push(error.message));
    const events = terminalEvents(receiver);
    for (const job of live) {
      const received = [...(events.get(job.id)?.values() ?? [])];
      if (received.length !== 1 || received[0]!.type !== `job.${job.status}`) {
        problems.push(`${job.id}: terminal events ${JSON.stringify(received)}, job ${job.status}`);
      } else if (received[0]!.size !== job.result?.size) {
        problems.push(`${job.id}: the event's result size ${received[0]!.size} is not ${job.result?.size}`);
      }
    }
    for (const id of deleted) {
      if ((events.get(id)?.size ?? 0) > 1)
        problems.push(`deleted ${id}: ${events.get(id)!.size} terminal events`);
    }
    expect(receiver.received.every((d) => d.verified)).toBe(true);

    // Nothing left behind: inputs go when a job ends, a deleted job's result at once, the others'
    // once their retention runs out.
    const objects = async () =>
      (
        (await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${prefix}/` })))
          .Contents ?? []
      ).map((o) => o.Key!.slice(prefix.length + 1));
    await until('an empty bucket', async () => (await objects()).length === 0, RETENTION_MS + 30_000).catch(
      async () => {
        for (const key of await objects()) {
          const id = key.split('/')[1]!;
          const state = deleted.has(id) ? 'deleted' : (finals.get(id)?.status ?? 'not a job');
          problems.push(
            `left in the bucket: ${key} (job ${state}, completed ${finals.get(id)?.completed_at})`,
          );
        }
      },
    );
    expect(processesMentioning(cluster.root)).toEqual([]);

    const retried = live.filter((j) => Number(j.attempts) > 1).length;
    console.log(
      `scale-out chaos (${backend}): ${expected.size} jobs submitted in ${submitSeconds.toFixed(1)} s, ` +
        `all terminal after ${terminalSeconds.toFixed(1)} s (${(expected.size / terminalSeconds).toFixed(1)} jobs/s); ` +
        `${chaos.kills} kills, ${chaos.pauses} pauses; ${retried} jobs with attempts > 1; ${deleted.size} deleted; ` +
        `${receiver.received.length} webhook deliveries; bucket empty after ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    expect(problems, failureReport(problems, chaos.log, cluster.output())).toEqual([]);
    expect(expected.size).toBe(JOBS);
    // Or the run proved little: workers really died (and, on PostgreSQL, stalled) under the jobs.
    expect(chaos.kills).toBeGreaterThanOrEqual(5);
    if (backend === 'postgres') expect(chaos.pauses).toBeGreaterThanOrEqual(1);
    expect(retried, 'jobs run again after losing their worker').toBeGreaterThan(0);
  }, 240_000);
});
