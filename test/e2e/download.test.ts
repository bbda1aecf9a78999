// The temporary link (docs/api.md §2): redirect, JSON form, headers, Range/HEAD, expiry, tampering, and
// that the token never reaches a log line.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { startTestServer } from '../support/server.js';
import { useTestServer } from '../support/use-test-server.js';

let jobId: string;

const quire = useTestServer({ QUIRE_DOWNLOAD_LINK_TTL_MS: '10000' });
beforeAll(async () => {
  const job = await quire.client.run({
    tool: 'rotate',
    options: { angle: 90 },
    files: [corpusFile('pypdf-samples__pdflatex-4-pages.pdf')],
  });
  expect(job.status).toBe('succeeded');
  jobId = job.id;
});

async function link(): Promise<string> {
  const response = await quire.client.fetch(`/api/v1/jobs/${jobId}/download`);
  expect(response.status).toBe(302);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return new URL(response.headers.get('location')!, quire.server.url).toString();
}

describe('temporary download link', () => {
  it('redirects to a link that serves the PDF with the contract headers, no key needed', async () => {
    const response = await fetch(await link());
    expect(response.status).toBe(200);
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(Number(response.headers.get('content-length'))).toBe(body.length);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('etag')).toMatch(/^"/);
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="pypdf-samples__pdflatex-4-pages-rotated\.pdf"; filename\*=UTF-8''pypdf-samples__pdflatex-4-pages-rotated\.pdf$/,
    );
    const file = path.join(os.tmpdir(), `quire-dl-${process.pid}.pdf`);
    writeFileSync(file, body);
    expect(execFileSync('qpdf', ['--show-npages', file]).toString().trim()).toBe('4');
  });

  it('names a non-ASCII result with an ASCII fallback and an RFC 8187 filename*', async () => {
    const job = await quire.client.run({
      tool: 'rotate',
      options: { angle: 90 },
      files: [
        { name: 'Prüfbericht 2026.pdf', data: readFileSync(corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')) },
      ],
    });
    const { response } = await quire.client.download(job.id);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Pr_fbericht 2026-rotated.pdf"; filename*=UTF-8''Pr%C3%BCfbericht%202026-rotated.pdf`,
    );
  });

  it('offers the link as JSON with its expiry', async () => {
    const response = await quire.client.fetch(`/api/v1/jobs/${jobId}/download`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { url: string; expires_at: string };
    expect(body.url).toMatch(/\/api\/v1\/files\//);
    const ttl = Date.parse(body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(5_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
  });

  it('serves byte ranges and HEAD', async () => {
    const url = await link();
    const whole = Buffer.from(await (await fetch(url)).arrayBuffer());
    const ranged = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 10-19/${whole.length}`);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(whole.subarray(10, 20));
    const suffix = await fetch(url, { headers: { range: 'bytes=-5' } });
    expect(Buffer.from(await suffix.arrayBuffer())).toEqual(whole.subarray(whole.length - 5));
    const outside = await fetch(url, { headers: { range: `bytes=${whole.length + 10}-` } });
    expect(outside.status).toBe(416);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(whole.length);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('refuses a tampered link with 403', async () => {
    const url = await link();
    const token = url.split('/files/')[1]!;
    const flipped = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    const response = await fetch(url.replace(token, flipped));
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('link_invalid');
    expect((await fetch(url.replace(token, `${token}x`))).status).toBe(403);
  });

  it('expires: the same link answers 403 after its lifetime', async () => {
    const short = await startTestServer({ QUIRE_DOWNLOAD_LINK_TTL_MS: '10000' });
    try {
      const c = new Client(short.url, (await short.newAccount()).key);
      const job = await c.run({
        tool: 'rotate',
        options: { angle: 90 },
        files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
      });
      const redirect = await c.fetch(`/api/v1/jobs/${job.id}/download`);
      const url = new URL(redirect.headers.get('location')!, short.url).toString();
      expect((await fetch(url)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 10_500));
      expect((await fetch(url)).status).toBe(403);
    } finally {
      await short.close();
    }
  }, 30_000);

  it('a link whose file was deleted since answers 410 result_expired, for GET and HEAD', async () => {
    const job = await quire.client.run({
      tool: 'rotate',
      options: { angle: 90 },
      files: [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')],
    });
    const redirect = await quire.client.fetch(`/api/v1/jobs/${job.id}/download`);
    const url = new URL(redirect.headers.get('location')!, quire.server.url).toString();
    expect((await quire.client.fetch(`/api/v1/jobs/${job.id}`, { method: 'DELETE' })).status).toBe(204);
    const response = await fetch(url);
    expect(response.status).toBe(410);
    expect(((await response.json()) as { code: string }).code).toBe('result_expired');
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(410);
  });

  it('never writes the token to the logs', async () => {
    const url = await link();
    await fetch(url);
    await fetch(url, { method: 'HEAD' });
    const token = url.split('/files/')[1]!;
    expect(quire.server.logs.length).toBeGreaterThan(0);
    expect(quire.server.logs.filter((line) => line.includes(token))).toEqual([]);
    expect(quire.server.logs.some((line) => line.includes('/api/v1/files/:token'))).toBe(true);
  });
});
