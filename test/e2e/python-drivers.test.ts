// The Python engine drivers ship in the build: every .py file of src/ sits at the same place under
// dist/ (scripts/copy-python.mjs), each adapter names its driver beside its own module, and the
// built `quire serve` runs the PyMuPDF and pyHanko drivers from there.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashableServe } from '../support/cli-process.js';
import { Client } from '../support/client.js';
import { repoRoot } from '../support/corpus.js';
import { pageText, toFile } from '../support/pdf.js';

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe('the Python drivers in the build', () => {
  it('puts every .py file of src/ at the same place under dist/, byte for byte, and drops stale ones', () => {
    const stale = path.join(repoRoot, 'dist/engines/stale-driver.py');
    execFileSync('touch', [stale]);
    execFileSync(process.execPath, ['scripts/copy-python.mjs'], { cwd: repoRoot });
    const sources = filesUnder(path.join(repoRoot, 'src'), '.py');
    expect(sources.length).toBeGreaterThanOrEqual(4);
    expect(filesUnder(path.join(repoRoot, 'dist'), '.py')).toEqual(sources);
    for (const file of sources) {
      expect(
        readFileSync(path.join(repoRoot, 'dist', file)).equals(
          readFileSync(path.join(repoRoot, 'src', file)),
        ),
      ).toBe(true);
    }
  });

  it('has each adapter name a driver beside its own module, which exists in src/ and dist/', () => {
    // Engines load their drivers; other modules' `new URL('…/')` (the web app's web/dist) are not drivers.
    const engineModules = filesUnder(path.join(repoRoot, 'src'), '.ts').filter((f) =>
      f.startsWith('engines/'),
    );
    const loads = engineModules.flatMap((file) =>
      [...readFileSync(path.join(repoRoot, 'src', file), 'utf8').matchAll(/new URL\('([^']*\.py|[^']*\/)'/g)]
        .map((m) => m[1]!)
        .filter((target) => !target.includes('.venv'))
        .map((target) => ({ file, target })),
    );
    expect(loads.map((l) => l.target).sort()).toEqual([
      './compare/',
      './convert.py',
      './driver.py',
      './office-bridge.py',
      './redact/',
      './structure/',
    ]);
    for (const { file, target } of loads) {
      for (const root of ['src', 'dist']) {
        const driver = path.join(repoRoot, root, path.dirname(file), target);
        expect(filesUnder(path.dirname(driver), '.py'), `${root}/${file} → ${target}`).toContain(
          target.endsWith('/') ? path.join(path.basename(driver), '__main__.py') : path.basename(driver),
        );
      }
    }
  });
});

describe('the built quire serve', () => {
  const serve = crashableServe('py-drivers');
  let client: Client;
  let input: string;

  beforeAll(async () => {
    await serve.setUp();
    await serve.start();
    client = new Client(serve.url, await serve.key());
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage().drawText('Account Zanzibar closed, KEEPME stays', { x: 72, y: 700, size: 18, font });
    input = toFile(Buffer.from(await doc.save()));
  }, 60_000);
  afterAll(() => serve.tearDown());

  it('redacts through the PyMuPDF driver it ships in dist/', async () => {
    const job = await client.run({ tool: 'redact', options: { texts: ['Zanzibar'] }, files: [input] }, 120);
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const output = toFile((await client.download(job.id)).body);
    expect(pageText(output)).toContain('KEEPME');
    expect(pageText(output)).not.toContain('Zanzibar');
  });

  it('verifies signatures through the pyHanko driver it ships in dist/', async () => {
    const job = await client.run({ tool: 'verify-signatures', files: [input] }, 120);
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const { body } = await client.download(job.id);
    expect(JSON.parse(body.toString('utf8'))).toMatchObject({ signatures: [] });
  });
});
