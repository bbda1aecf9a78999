// What one account's document leaves in a pooled engine never reaches another account's output.
// Account A converts documents that carry their own fonts — one named "Arial" whose digits are
// swapped, one with a family only A has — on every instance of the pool; account B then converts
// documents that ask for those family names without carrying them. B's output must embed the
// system's substitutes (pdffonts) and render exactly as B's own document did on a fresh pool.
// html-to-pdf is held to the same: A's web font and stylesheet reach none of B's pages.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { descendants } from '../support/cluster.js';
import { repoRoot } from '../support/corpus.js';
import { toFile, zipOf } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';

const POOL_SIZE = 2;
/** PostScript names of A's fonts: what pdffonts shows wherever they are embedded. */
const CANARY_ARIAL = 'QuireCanaryArial';
const CANARY_ONLY_A = 'QuireCanaryOnlyA';
const ONLY_A_FAMILY = 'Quire Tenant A Sans';

let alice: Client;
let bob: Client;
let scratch: string;
let fonts: { arial: Buffer; onlyA: Buffer };

function canaryFont(family: string, psName: string): Buffer {
  const out = path.join(scratch, `${psName}.ttf`);
  execFileSync('/usr/bin/python3', [path.join(repoRoot, 'test/support/font-canary.py'), out, family, psName]);
  return readFileSync(out);
}

/** An ODT invoice whose two paragraphs use `Arial` and A's own family, embedding `embed` if given. */
function invoiceOdt(embed?: { arial: Buffer; onlyA: Buffer }): Promise<Buffer> {
  const uri = (file: string) =>
    embed
      ? `<svg:font-face-src><svg:font-face-uri xlink:href="Fonts/${file}" xlink:type="simple"><svg:font-face-format svg:string="truetype"/></svg:font-face-uri></svg:font-face-src>`
      : '';
  const content = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3">
<office:font-face-decls>
<style:font-face style:name="Arial" svg:font-family="Arial">${uri('arial.ttf')}</style:font-face>
<style:font-face style:name="OnlyA" svg:font-family="'${ONLY_A_FAMILY}'">${uri('only-a.ttf')}</style:font-face>
</office:font-face-decls>
<office:automatic-styles>
<style:style style:name="P1" style:family="paragraph"><style:text-properties style:font-name="Arial" fo:font-size="28pt"/></style:style>
<style:style style:name="P2" style:family="paragraph"><style:text-properties style:font-name="OnlyA" fo:font-size="28pt"/></style:style>
</office:automatic-styles>
<office:body><office:text>
<text:p text:style-name="P1">Total: 1,000.00 EUR</text:p>
<text:p text:style-name="P2">Due: 10.01.2027</text:p>
</office:text></office:body></office:document-content>`;
  const fontEntries = embed
    ? '<manifest:file-entry manifest:full-path="Fonts/arial.ttf" manifest:media-type="application/x-font-ttf"/><manifest:file-entry manifest:full-path="Fonts/only-a.ttf" manifest:media-type="application/x-font-ttf"/>'
    : '';
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">
<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>${fontEntries}
</manifest:manifest>`;
  // ODF: `mimetype` first (and stored: zipOf), so the type is readable at a fixed offset.
  return zipOf({
    mimetype: 'application/vnd.oasis.opendocument.text',
    'content.xml': content,
    'META-INF/manifest.xml': manifest,
    ...(embed ? { 'Fonts/arial.ttf': embed.arial, 'Fonts/only-a.ttf': embed.onlyA } : {}),
  });
}

const PAGE = `<!doctype html><html><head><link rel="stylesheet" href="style.css">
<style>p { font: 28pt Arial; }</style></head><body><p>Total: 1,000.00 EUR</p></body></html>`;

/** `count` conversions at once, so each instance of the pool takes one; their PDFs on disk. */
async function convertAtOnce(
  client: Client,
  doc: Buffer,
  count: number,
  tool = 'office-to-pdf',
  name = 'invoice.odt',
): Promise<string[]> {
  const submitted = await Promise.all(
    Array.from({ length: count }, () => client.submit({ tool, files: [{ name, data: doc }] })),
  );
  const jobs = await Promise.all(submitted.map((j) => client.waitFor(j.id, 150)));
  for (const job of jobs) expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  return Promise.all(jobs.map(async (j) => toFile((await client.download(j.id)).body)));
}

/** This test process's LibreOffice processes: which instances are serving. */
function officePids(): number[] {
  return descendants(process.pid)
    .filter((p) => p.args.includes('soffice.bin'))
    .map((p) => p.pid)
    .sort();
}

function embeddedFonts(pdf: string): string {
  return execFileSync('pdffonts', [pdf], { encoding: 'utf8' });
}

/** The first page as a grey-scale PGM at 72 dpi: equal layouts give equal bytes. */
function render(pdf: string): Buffer {
  return execFileSync('pdftoppm', ['-r', '72', '-gray', '-f', '1', '-l', '1', pdf]);
}

const quire = useTestServer(
  {
    QUIRE_WORKER_CONCURRENCY: String(POOL_SIZE),
    QUIRE_OFFICE_POOL_SIZE: String(POOL_SIZE),
    QUIRE_BROWSER_POOL_SIZE: '1',
  },
  { timeoutMs: 180_000 },
);
beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'quire-isolation-'));
  fonts = { arial: canaryFont('Arial', CANARY_ARIAL), onlyA: canaryFont(ONLY_A_FAMILY, CANARY_ONLY_A) };
  alice = new Client(quire.server.url, (await quire.server.newAccount()).key);
  bob = new Client(quire.server.url, (await quire.server.newAccount()).key);
}, 180_000);
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('office-to-pdf keeps accounts apart', () => {
  it("uses a document's embedded fonts for it and for no later conversion of another account", async () => {
    const plain = await invoiceOdt();
    const [baseline] = await convertAtOnce(bob, plain, 1);
    expect(embeddedFonts(baseline!)).not.toContain('QuireCanary');

    const withFonts = await convertAtOnce(alice, await invoiceOdt(fonts), POOL_SIZE);
    for (const pdf of withFonts) {
      expect(embeddedFonts(pdf)).toContain(CANARY_ARIAL);
      expect(embeddedFonts(pdf)).toContain(CANARY_ONLY_A);
    }

    const after = await convertAtOnce(bob, plain, POOL_SIZE * 2);
    const expected = render(baseline!);
    for (const pdf of after) {
      expect(embeddedFonts(pdf)).not.toContain('QuireCanary');
      expect(render(pdf).equals(expected)).toBe(true);
    }

    // Documents without fonts leave nothing behind: the same instances serve on. The instances that
    // replaced the tainted ones are first seen serving a full round, so one still starting on a
    // loaded machine (past the cold-start limit it counts as broken and is replaced) is not taken
    // for one a plain document retired.
    await convertAtOnce(bob, plain, POOL_SIZE * 2);
    const serving = officePids();
    expect(serving).toHaveLength(POOL_SIZE);
    await convertAtOnce(bob, plain, POOL_SIZE * 2);
    expect(officePids()).toEqual(serving);
  }, 400_000);
});

describe('html-to-pdf keeps accounts apart', () => {
  it("uses a page's web font and stylesheet for it and for no later page of another account", async () => {
    const [baseline] = await convertAtOnce(bob, Buffer.from(PAGE), 1, 'html-to-pdf', 'invoice.html');
    const site = await zipOf({
      'index.html': PAGE.replace('<style>', '<style>@font-face { font-family: Arial; src: url(arial.ttf); }'),
      'arial.ttf': fonts.arial,
      'style.css': 'p::after { content: " Stylesheet of A Koala5"; }',
    });
    const [mine] = await convertAtOnce(alice, site, 1, 'html-to-pdf', 'site.zip');
    expect(embeddedFonts(mine!)).toContain(CANARY_ARIAL);
    expect(execFileSync('pdftotext', [mine!, '-'], { encoding: 'utf8' })).toContain('Koala5');

    const after = await convertAtOnce(bob, Buffer.from(PAGE), 2, 'html-to-pdf', 'invoice.html');
    for (const pdf of after) {
      expect(embeddedFonts(pdf)).not.toContain('QuireCanary');
      expect(execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' })).not.toContain('Koala5');
      expect(render(pdf).equals(render(baseline!))).toBe(true);
    }
  }, 300_000);
});
