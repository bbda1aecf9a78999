// issue 17, "what must hold" 1: tus-js-client sends a 2 GiB PDF in 5 MiB chunks to a real `quire
// serve` (child process, embedded default) through a proxy that cuts the connection three times;
// the upload completes by resuming, the stored bytes' SHA-256 matches, the server's RSS grows by
// less than 100 MiB, and a compress job on the upload succeeds.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliProcess, freePort, readInitialKey, startCli, waitForReady } from '../support/cli-process.js';
import { rssBytes, sampleRss } from '../support/process-memory.js';
import { droppingProxy, largePdf, tusUpload } from '../support/tus.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const SIZE = 2 * GiB;
let dataDir: string;
let url: string;
let serve: CliProcess;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'quire-tus-large-'));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  serve = startCli(['serve'], {
    QUIRE_DATA_DIR: dataDir,
    QUIRE_PORT: String(port),
    QUIRE_LOG_LEVEL: 'warn',
    QUIRE_UPLOAD_MAX_FILE_BYTES: String(3 * GiB),
    QUIRE_UPLOAD_MAX_TOTAL_BYTES: String(3 * GiB),
  });
  await waitForReady(url);
});
afterAll(async () => {
  await serve?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 4 * MiB })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

it('resumes a 2 GiB upload over three cut connections, memory flat, then compresses it', async () => {
  const key = await readInitialKey(dataDir);
  const proxy = await droppingProxy(new URL(url), [300 * MiB, 900 * MiB, 1500 * MiB]);
  const pid = serve.child.pid!;
  const before = rssBytes(pid);
  const rss = sampleRss(pid);
  const pdf = largePdf(SIZE);
  const started = Date.now();
  let uploadUrl: string;
  try {
    uploadUrl = await tusUpload(proxy.url, pdf.stream, { key, chunkSize: 5 * MiB, size: SIZE });
  } finally {
    rss.stop();
    await proxy.close();
  }
  const uploadSeconds = (Date.now() - started) / 1000;
  expect(proxy.drops).toBe(3);
  const id = uploadUrl.split('/').pop()!;
  expect(await sha256Of(path.join(dataDir, 'uploads', id))).toBe(await pdf.sha256);
  const growth = rss.peak() - before;
  console.info(
    `2 GiB tus upload: ${uploadSeconds.toFixed(1)} s, RSS ${(before / MiB).toFixed(0)} → peak ${(rss.peak() / MiB).toFixed(0)} MiB`,
  );
  expect(growth).toBeLessThan(100 * MiB);

  const form = new FormData();
  form.set('tool', 'compress');
  form.set('options', JSON.stringify({ level: 'lossless' }));
  form.append('upload_id', id);
  const created = await fetch(`${url}/api/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, prefer: 'wait=60' },
    body: form,
  });
  expect(created.status, await created.clone().text()).toBe(201);
  let job = (await created.json()) as { id: string; status: string; error?: unknown };
  const deadline = Date.now() + 120_000;
  while (!['succeeded', 'failed'].includes(job.status) && Date.now() < deadline) {
    const polled = await fetch(`${url}/api/v1/jobs/${job.id}?wait=30`, {
      headers: { authorization: `Bearer ${key}` },
    });
    job = (await polled.json()) as typeof job;
  }
  console.info(
    `2 GiB compress job: ${((Date.now() - started) / 1000 - uploadSeconds).toFixed(1)} s after the upload`,
  );
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
}, 300_000);
