// The README's first command, as a newcomer runs it: `quire serve` on an empty data dir prints a key,
// answers /readyz, and a curl session compresses a corpus PDF end to end.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, freePort, readInitialKey, startCli, waitForReady } from '../support/cli-process.js';
import { corpusFile } from '../support/corpus.js';

let dataDir: string;
let cli: CliProcess;
let base: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-quickstart-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  cli = startCli(['serve'], { QUIRE_DATA_DIR: dataDir, QUIRE_PORT: String(port), QUIRE_LOG_LEVEL: 'warn' });
  await waitForReady(base);
});
afterAll(async () => {
  await cli.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const curl = (...args: string[]) => execFileSync('curl', ['-sS', ...args], { encoding: 'utf8' });

describe('quick start', () => {
  // Printing the key itself at a terminal is checked in test/hostile/http-initial-key.test.ts.
  it('writes the first API key to data/initial-api-key with mode 0600 and, off a terminal, prints only that path', async () => {
    const key = await readInitialKey(dataDir);
    expect(key).toMatch(/^qk_live_[0-9A-Za-z]{8}_[0-9A-Za-z]{43}$/);
    expect(cli.output()).not.toContain(key);
    expect(cli.output()).toContain(path.join(dataDir, 'initial-api-key'));
    expect((await stat(path.join(dataDir, 'initial-api-key'))).mode & 0o777).toBe(0o600);
  });

  it('compresses a corpus PDF through a curl session: progress reaches 100 and the download is a valid, smaller PDF', async () => {
    const key = await readInitialKey(dataDir);
    const input = corpusFile('pdfjs__tracemonkey.pdf');
    const created = JSON.parse(
      curl(
        '-H',
        `Authorization: Bearer ${key}`,
        '-F',
        'tool=compress',
        '-F',
        'options={"level":"medium"}',
        '-F',
        `file=@${input}`,
        `${base}/api/v1/jobs`,
      ),
    ) as { id: string; status: string };
    expect(created.status).toBe('queued');

    const seen: number[] = [];
    let job: { status: string; progress: number } = { status: 'queued', progress: 0 };
    for (let i = 0; i < 120 && !['succeeded', 'failed'].includes(job.status); i++) {
      job = JSON.parse(
        curl('-H', `Authorization: Bearer ${key}`, `${base}/api/v1/jobs/${created.id}?wait=1`),
      );
      seen.push(job.progress);
    }
    expect(job.status).toBe('succeeded');
    expect(seen.at(-1)).toBe(100);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen); // never decreasing

    const output = path.join(dataDir, 'out.pdf');
    curl(
      '-L',
      '-o',
      output,
      '-H',
      `Authorization: Bearer ${key}`,
      `${base}/api/v1/jobs/${created.id}/download`,
    );
    execFileSync('qpdf', ['--check', output]);
    expect((await stat(output)).size).toBeLessThan((await stat(input)).size);
  });
});
