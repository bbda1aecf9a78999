// The SDK with a 1 GiB file, in child processes measured from outside (/proc): a streamed multipart
// upload and its download keep the client's RSS growth under 64 MiB (streamed, not held), and a tus upload killed at 50 %
// resumes in a new process from where the server stopped, with every byte the same.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeEngine } from '../../support/fake-engine/index.js';
import { fakeTool } from '../../support/fake-engine/tool.js';
import { rssBytes, sampleRss } from '../../support/process-memory.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { bigPdf, buildSdk, scratchDir } from './support.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
const program = path.join(import.meta.dirname, 'programs', 'transfer.mjs');

let server: TestServer;
let key: string;
let dir: string;
let build: string;
let input: string;

beforeAll(async () => {
  [server, dir, build] = await Promise.all([
    startTestServer(
      { QUIRE_UPLOAD_MAX_FILE_BYTES: String(2 * GIB) },
      { extras: { engines: [fakeEngine], tools: [fakeTool] } },
    ),
    scratchDir('large'),
    buildSdk('large'),
  ]);
  key = (await server.newAccount()).key;
  input = await bigPdf(path.join(dir, 'one-gib.pdf'), GIB);
  expect((await stat(input)).size).toBe(GIB);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(build, { recursive: true, force: true });
});

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

interface Client {
  child: ChildProcess;
  /** RSS when loaded, before any transfer. */
  baseline: number;
  lines: string[];
  onLine(listener: (line: string) => void): void;
  exited: Promise<number | null>;
}

/** Starts the client program and waits for `ready`; writing to its stdin starts the transfer. */
async function startClient(args: string[]): Promise<Client> {
  const child = spawn(
    process.execPath,
    [program, path.join(build, 'index.js'), server.url, key, path.join(dir, 'tus.json'), ...args],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines: string[] = [];
  const listeners: Array<(line: string) => void> = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener(line);
  });
  await new Promise<void>((resolve, reject) => {
    listeners.push((line) => line === 'ready' && resolve());
    void exited.then(() => reject(new Error('the client exited before it was ready')));
  });
  return { child, baseline: rssBytes(child.pid!), lines, onLine: (l) => listeners.push(l), exited };
}

describe('the SDK with a 1 GiB file', () => {
  // Issue 27's bound. The upload reads the file into a few reused buffers (multipart.ts); what is
  // left is mostly the download's fresh socket chunks waiting for V8's next young-generation GC.
  it('uploads it (streamed multipart) and downloads the result with under 64 MiB of RSS growth', async () => {
    const output = path.join(dir, 'result.pdf');
    const client = await startClient(['run', input, output]);
    const rss = sampleRss(client.child.pid!, 50);
    let uploadPeak = 0;
    client.onLine((line) => {
      const [word, sent, total] = line.split(' ');
      if (word === 'progress' && sent === total) uploadPeak = rss.peak();
    });
    client.child.stdin!.write('go\n');
    expect(await client.exited).toBe(0);
    rss.stop();
    const growth = rss.peak() - client.baseline;
    console.info(
      `1 GiB multipart upload + download: RSS ${Math.round(client.baseline / MIB)} MiB at start, peak growth ${Math.round(growth / MIB)} MiB (${Math.round((uploadPeak - client.baseline) / MIB)} MiB by the end of the upload)`,
    );
    expect(uploadPeak).toBeGreaterThan(0);
    expect(growth).toBeLessThan(64 * MIB);
    expect(JSON.parse(client.lines.at(-1) ?? '{}')).toMatchObject({ bytes: GIB });
    expect((await stat(output)).size).toBe(GIB);
    expect(await sha256(output)).toBe(await sha256(input));
    await rm(output);
  }, 300_000);

  it('resumes a tus upload after the client is killed at 50 %, and the server holds the same bytes', async () => {
    const first = await startClient(['upload', input]);
    const firstRss = sampleRss(first.child.pid!, 50);
    first.onLine((line) => {
      const [word, sent, total] = line.split(' ');
      if (word === 'progress' && Number(sent) >= Number(total) / 2) first.child.kill('SIGKILL');
    });
    first.child.stdin!.write('go\n');
    await first.exited;
    firstRss.stop();

    const second = await startClient(['upload', input]);
    const secondRss = sampleRss(second.child.pid!, 50);
    second.child.stdin!.write('go\n');
    expect(await second.exited).toBe(0);
    secondRss.stop();
    const progress = second.lines
      .filter((l) => l.startsWith('progress '))
      .map((l) => Number(l.split(' ')[1]));
    // The new process started from the server's offset, not from 0.
    expect(progress[0]).toBeGreaterThanOrEqual(GIB / 2 - 64 * MIB);
    const upload = JSON.parse(second.lines.at(-1) ?? '{}') as { id: string; size: number };
    expect(upload.size).toBe(GIB);
    console.info(
      `tus: resumed at ${Math.round((progress[0] ?? 0) / MIB)} MiB; RSS growth ${Math.round((firstRss.peak() - first.baseline) / MIB)} and ${Math.round((secondRss.peak() - second.baseline) / MIB)} MiB`,
    );
    expect(firstRss.peak() - first.baseline).toBeLessThan(96 * MIB);
    expect(secondRss.peak() - second.baseline).toBeLessThan(96 * MIB);

    const stored = (await readdir(server.dataDir, { recursive: true })).find(
      (f) => path.basename(f) === upload.id,
    );
    expect(stored, `upload ${upload.id} under ${server.dataDir}`).toBeDefined();
    expect(await sha256(path.join(server.dataDir, stored!))).toBe(await sha256(input));
  }, 300_000);
});
