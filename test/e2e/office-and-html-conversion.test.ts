// office-to-pdf and html-to-pdf over real HTTP with the real LibreOffice and Chromium pools:
// conversions by text, concurrency by timestamps, a hang by its timeout, and a page that tries
// to phone home by a listening server that must see nothing.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hangingCsv, officeDocuments } from '../support/heavy-fixtures.js';
import { pageText, toFile, zipOf } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';

let docs: { docx: string; xlsx: string; pptx: string };

const quire = useTestServer({
  QUIRE_WORKER_CONCURRENCY: '2',
  QUIRE_OFFICE_POOL_SIZE: '2',
  QUIRE_OFFICE_TIMEOUT_MS: '15000',
  QUIRE_BROWSER_POOL_SIZE: '1',
});
beforeAll(async () => {
  docs = officeDocuments('Quokka7');
}, 180_000);

async function pdfOf(id: string): Promise<string> {
  return toFile((await quire.client.download(id)).body);
}

describe('office-to-pdf', () => {
  it('converts docx, xlsx and pptx made by LibreOffice, four at once on two workers', async () => {
    const files = [docs.docx, docs.xlsx, docs.pptx, docs.docx];
    const submitted = await Promise.all(
      files.map((f) => quire.client.submit({ tool: 'office-to-pdf', files: [f] })),
    );
    const jobs = await Promise.all(submitted.map((j) => quire.client.waitFor(j.id, 150)));
    for (const job of jobs) expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const texts = await Promise.all(jobs.map(async (j) => pageText(await pdfOf(j.id))));
    expect(texts[0]).toContain('Document Quokka7');
    expect(texts[1]).toContain('Sheet Quokka7');
    expect(texts[2]).toContain('Slide Quokka7');
    // Two workers: some pair of conversions ran at the same time.
    const spans = jobs.map(
      (j) => [Date.parse(j.started_at as string), Date.parse(j.completed_at as string)] as const,
    );
    const overlapping = spans.some(([s1, e1], i) => spans.some(([s2], k) => k !== i && s2 >= s1 && s2 < e1));
    expect(overlapping).toBe(true);
  }, 200_000);

  it('kills a conversion that hangs at its limit, fails it with timeout, and converts the next', async () => {
    const hung = await quire.client.run({ tool: 'office-to-pdf', files: [hangingCsv()] }, 120);
    expect(hung.status).toBe('failed');
    expect(hung.error?.code).toBe('timeout');
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain('hang.csv');
    const next = await quire.client.run({ tool: 'office-to-pdf', files: [docs.docx] }, 120);
    expect(next.status, JSON.stringify(next.error)).toBe('succeeded');
    expect(pageText(await pdfOf(next.id))).toContain('Quokka7');
  }, 200_000);
});

describe('html-to-pdf', () => {
  let beacon: http.Server;
  const seen: string[] = [];
  beforeAll(async () => {
    beacon = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end('x');
    });
    await new Promise<void>((r) => beacon.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => beacon.close(() => r())));

  it('renders its own CSS and image but lets no request leave the page', async () => {
    const port = (beacon.address() as AddressInfo).port;
    const png = readFileSync(
      execFileSync('sh', ['-c', 'ls /usr/share/icons/hicolor/*/apps/*.png | head -1'], {
        encoding: 'utf8',
      }).trim(),
    );
    const html = `<!doctype html><html><head><link rel="stylesheet" href="style.css">
      <link rel="stylesheet" href="http://127.0.0.1:${port}/beacon.css"></head><body>
      <h1 class="title">Local page Wombat9</h1><img src="img/logo.png" width="120">
      <img src="http://127.0.0.1:${port}/beacon"><img src="https://example.com/remote.png">
      <script>fetch('http://127.0.0.1:${port}/fetch').catch(() => {});
        new Image().src = 'file:///etc/passwd';
        document.body.insertAdjacentHTML('beforeend', '<p>Script ran Numbat3</p>');</script>
      </body></html>`;
    const site = await zipOf({
      'index.html': html,
      'style.css': '.title::after { content: " styled Koala5"; }',
      'img/logo.png': png,
    });
    const job = await quire.client.run(
      { tool: 'html-to-pdf', files: [{ name: 'site.zip', data: site }], options: { wait_ms: 500 } },
      120,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const pdf = await pdfOf(job.id);
    const text = pageText(pdf).replace(/\s+/g, ' ');
    expect(text).toContain('Local page Wombat9 styled Koala5');
    expect(text).toContain('Script ran Numbat3');
    const images = execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .slice(2);
    expect(images.length).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual([]);
  }, 150_000);

  it('gives each job a fresh context in the shared browser: storage and cookies set by one job stay there', async () => {
    const page = (script: string) => ({
      name: 'index.html',
      data: Buffer.from(`<!doctype html><body><script>${script}</script></body>`),
    });
    const writer = page(`localStorage.setItem('left', 'Aardvark1');
      document.cookie = 'left=Aardvark1; max-age=3600; path=/';
      document.body.insertAdjacentHTML('beforeend', '<p>stored ' + localStorage.getItem('left') + ' ' + document.cookie + '</p>');`);
    const reader = page(`document.body.insertAdjacentHTML('beforeend',
      '<p>found [' + localStorage.getItem('left') + '] [' + document.cookie + '] Bandicoot2</p>');`);
    const first = await quire.client.run({ tool: 'html-to-pdf', files: [writer] }, 120);
    expect(first.status, JSON.stringify(first.error)).toBe('succeeded');
    // The writer really stored both on the same origin the next job's page gets.
    expect(pageText(await pdfOf(first.id))).toContain('stored Aardvark1 left=Aardvark1');
    const second = await quire.client.run({ tool: 'html-to-pdf', files: [reader] }, 120);
    expect(second.status, JSON.stringify(second.error)).toBe('succeeded');
    const text = pageText(await pdfOf(second.id)).replace(/\s+/g, ' ');
    expect(text).toContain('found [null] [] Bandicoot2');
    expect(text).not.toContain('Aardvark1');
  }, 150_000);

  it('refuses a ZIP whose entries climb out of the folder', async () => {
    // yazl refuses to write `../` names, so the name is patched in afterwards (same length).
    const zip = await zipOf({ 'index.html': '<p>x</p>', 'zz/escape.txt': 'x' });
    const evil = Buffer.from(zip.toString('latin1').replaceAll('zz/escape.txt', '../escape.txt'), 'latin1');
    const job = await quire.client.run(
      { tool: 'html-to-pdf', files: [{ name: 'evil.zip', data: evil }] },
      60,
    );
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('unsupported_file');
  }, 60_000);
});
