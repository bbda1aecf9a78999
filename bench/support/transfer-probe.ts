// What a client pays to move the merge bench's bytes over loopback: the 10-input upload (9.1 MB) and
// the merged download (8.6 MB), by several Node clients and by curl, wall time and the client's own
// CPU. Not a benchmark of the service (the service's work is the same for all); the evidence behind
// BenchClient's shape (docs/benchmarks.md "The bench client"). Run after a build:
//   node dist/bench/support/transfer-probe.js [transfers per variant and round, default 8]
// Each Node variant runs in a child process of its own: a variant's garbage, collected during
// another's transfer, would otherwise be billed to the wrong one.
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, openAsBlob, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchClient } from './client.js';
import { MERGE_INPUTS } from './paths.js';
import { startServer } from './server.js';
import { fmt, median } from './stats.js';

const WARMUP = 3;
const OPTIONS = JSON.stringify({ bookmarks: 'none' });

interface Target {
  jobsUrl: string;
  key: string;
  fileUrl: string;
  size: number;
}

type Transfer = (t: Target) => Promise<void>;

function expect(what: string, got: unknown, want: unknown): void {
  if (got !== want) throw new Error(`${what}: ${got}, expected ${want}`);
}

/** The same multipart framing as multipart.ts, but every chunk fresh from createReadStream. */
const freshChunks: Transfer = async (t) => {
  const boundary = 'probe-boundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="tool"\r\n\r\nmerge\r\n--${boundary}\r\nContent-Disposition: form-data; name="options"\r\n\r\n${OPTIONS}\r\n`;
  const parts = MERGE_INPUTS.map((file) => ({
    file,
    header: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  }));
  const tail = `--${boundary}--\r\n`;
  const length =
    Buffer.byteLength(head) +
    parts.reduce((sum, p) => sum + Buffer.byteLength(p.header) + statSync(p.file).size + 2, 0) +
    Buffer.byteLength(tail);
  const request = http.request(t.jobsUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${t.key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': length,
    },
  });
  const answered = new Promise<number>((resolve, reject) => {
    request.once('response', (r) => r.resume().once('end', () => resolve(r.statusCode!)));
    request.once('error', reject);
  });
  request.write(head);
  for (const part of parts) {
    request.write(part.header);
    for await (const chunk of createReadStream(part.file)) {
      if (!request.write(chunk)) await new Promise((r) => request.once('drain', r));
    }
    request.write('\r\n');
  }
  request.end(tail);
  expect('create', await answered, 201);
};

/** One client per process, as a caller keeps one: its agent and upload buffers are reused. */
let benchClient: BenchClient | undefined;

const UPLOADS: Record<string, Transfer> = {
  'fetch + FormData + openAsBlob (bench client before)': async (t) => {
    const form = new FormData();
    form.set('tool', 'merge');
    form.set('options', OPTIONS);
    for (const file of MERGE_INPUTS) form.append('file', await openAsBlob(file), path.basename(file));
    const response = await fetch(t.jobsUrl, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${t.key}` },
    });
    await response.json();
    expect('create', response.status, 201);
  },
  'node:http, createReadStream chunks (64 KiB, fresh)': freshChunks,
  'BenchClient.createJob (node:http, 2 reused 256 KiB buffers, sync reads)': async (t) => {
    benchClient ??= new BenchClient(new URL(t.jobsUrl).origin, t.key);
    await benchClient.createJob('merge', { bookmarks: 'none' }, MERGE_INPUTS);
  },
};

const DOWNLOADS: Record<string, Transfer> = {
  'fetch, arrayBuffer() (bench client before)': async (t) => {
    expect('bytes', (await (await fetch(t.fileUrl)).arrayBuffer()).byteLength, t.size);
  },
  'fetch, body stream counted': async (t) => {
    let bytes = 0;
    for await (const chunk of (await fetch(t.fileUrl)).body!) bytes += chunk.byteLength;
    expect('bytes', bytes, t.size);
  },
  'node:http, data events counted (BenchClient)': (t) =>
    new Promise((resolve, reject) => {
      http
        .get(t.fileUrl, (response) => {
          let bytes = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          response.once('end', () => {
            expect('bytes', bytes, t.size);
            resolve();
          });
        })
        .once('error', reject);
    }),
};

/** Wall time of each transfer, and the client's CPU over all of them. */
interface Figures {
  wallMs: number[];
  cpuMs: number;
}

/** In a child: warm up, then time `n` transfers of one variant. */
async function child(name: string, n: number, t: Target): Promise<Figures> {
  const transfer = UPLOADS[name] ?? DOWNLOADS[name]!;
  for (let i = 0; i < WARMUP; i++) await transfer(t);
  const wallMs: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await transfer(t);
    wallMs.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** curl's CPU from bash's `times` (its children's user + sys), n transfers chained with --next. */
function curlCpuMs(args: string[], n: number): number {
  const one = ['-s', '-o', '/dev/null', ...args];
  const chained = Array.from({ length: n }, (_, i) => (i === 0 ? one : ['--next', ...one])).flat();
  const out = execFileSync('bash', ['-c', 'curl "$@"; times', 'bash', ...chained], {
    encoding: 'utf8',
  });
  const seconds = (text: string) => {
    const [, m, s] = /(\d+)m([\d.]+)s/.exec(text)!;
    return Number(m) * 60 + Number(s);
  };
  const [user, sys] = out.trim().split('\n').at(-1)!.split(' ');
  return (seconds(user!) + seconds(sys!)) * 1000;
}

function curl(args: string[], n: number): Figures {
  const wallMs: number[] = [];
  for (let i = 0; i < WARMUP + n; i++) {
    const out = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{time_total}', ...args], {
      encoding: 'utf8',
    }).stdout;
    if (i >= WARMUP) wallMs.push(Number(out) * 1000);
  }
  // Start-up (loading libcurl and OpenSSL) is paid once per process, so it is taken out.
  return { wallMs, cpuMs: curlCpuMs(args, n + 1) - curlCpuMs(args, 1) };
}

/** Rounds in which every variant runs `perRound` transfers, alternating, so load drifts are shared. */
const ROUNDS = 3;

function compare(title: string, variants: Record<string, (n: number) => Figures>, perRound: number): void {
  const all = new Map(Object.keys(variants).map((name) => [name, { wallMs: [] as number[], cpuMs: 0 }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(variants)) {
      const figures = run(perRound);
      const sum = all.get(name)!;
      sum.wallMs.push(...figures.wallMs);
      sum.cpuMs += figures.cpuMs;
    }
  }
  console.log(`${title}, ${ROUNDS} rounds × ${perRound} transfers per variant (wall p50, client CPU mean):`);
  for (const [name, sum] of all)
    console.log(
      `  ${name.padEnd(62)} ${fmt(median(sum.wallMs)).padStart(6)} ms, CPU ${fmt(sum.cpuMs / sum.wallMs.length)} ms`,
    );
}

async function main(perRound: number): Promise<void> {
  const server = await startServer('serve', { QUIRE_LOG_LEVEL: 'warn' });
  try {
    const client = new BenchClient(server.baseUrl, server.key);
    const flow = await client.flow('merge', { bookmarks: 'none' }, MERGE_INPUTS);
    const link = await fetch(new URL(`/api/v1/jobs/${flow.job.id}/download`, server.baseUrl), {
      headers: { authorization: `Bearer ${server.key}` },
      redirect: 'manual',
    });
    const target: Target = {
      jobsUrl: new URL('/api/v1/jobs', server.baseUrl).href,
      key: server.key,
      fileUrl: new URL(link.headers.get('location')!, server.baseUrl).href,
      size: flow.bytes,
    };
    const inChild = (name: string) => (n: number) =>
      JSON.parse(
        execFileSync(process.execPath, [fileURLToPath(import.meta.url), name, String(n)], {
          env: { ...process.env, PROBE_TARGET: JSON.stringify(target) },
          encoding: 'utf8',
        }),
      ) as Figures;
    const uploadArgs = [
      ...['-H', `Authorization: Bearer ${server.key}`, '-F', 'tool=merge', '-F', `options=${OPTIONS}`],
      ...MERGE_INPUTS.flatMap((file) => ['-F', `file=@${file}`]),
      target.jobsUrl,
    ];
    const byName = (names: string[]) => Object.fromEntries(names.map((name) => [name, inChild(name)]));
    console.log(`load average at start ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    compare(
      'upload of the 10 merge inputs (9.1 MB)',
      { 'curl -F (yardstick)': (n) => curl(uploadArgs, n), ...byName(Object.keys(UPLOADS)) },
      perRound,
    );
    compare(
      `download of the merged result (${fmt(target.size / 1e6)} MB)`,
      {
        'curl -o /dev/null (yardstick)': (n) => curl([target.fileUrl], n),
        ...byName(Object.keys(DOWNLOADS)),
      },
      perRound,
    );
    console.log(`load average at end ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
  } finally {
    await server.stop();
  }
}

const [name, count] = process.argv.slice(2);
if (name !== undefined && process.env.PROBE_TARGET) {
  const figures = await child(name, Number(count), JSON.parse(process.env.PROBE_TARGET) as Target);
  process.stdout.write(JSON.stringify(figures));
} else {
  await main(Number(name ?? 8));
  process.exit(0);
}
