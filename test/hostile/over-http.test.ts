// The real service (startTestServer, its data dir and blob store) against jobs that try to read
// what the service keeps: the server secret in $QUIRE_DATA_DIR and another job's stored input,
// through office-to-pdf and html-to-pdf. The jobs must succeed and show none of it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { textPdf } from '../support/heavy-fixtures.js';
import { pageText, toFile, zipOf } from '../support/pdf.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { docxField, docxLinkedImage, odtLinkedImage, VISIBLE } from './office-documents.js';

const OTHER_INPUT = 'OtherTenantInput7';

let server: TestServer;
let client: Client;
let secret: string;
let secretFile: string;
let theirPdf: string;

beforeAll(async () => {
  server = await startTestServer({
    QUIRE_WORKER_CONCURRENCY: '2',
    QUIRE_OFFICE_POOL_SIZE: '1',
    QUIRE_BROWSER_POOL_SIZE: '1',
  });
  client = new Client(server.url, (await server.newAccount()).key);
  secretFile = path.join(server.dataDir, 'server-secret');
  secret = readFileSync(secretFile, 'utf8').trim();
  theirPdf = textPdf('their.pdf', [OTHER_INPUT]);
}, 120_000);
afterAll(() => server?.close());

async function convertedText(name: string, data: Buffer | string, tool = 'office-to-pdf'): Promise<string> {
  const job = await client.run({ tool, files: [{ name, data: Buffer.from(data) }] }, 120);
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  return pageText(await toFile((await client.download(job.id)).body));
}

/** Where under the data dir a file called `name` sits now (a running job's work dir). */
function fileNamed(name: string): string | undefined {
  const found = execFileSync('find', [server.dataDir, '-name', name], { encoding: 'utf8' }).trim();
  return found.split('\n')[0] || undefined;
}

describe('a job cannot read what the service keeps', () => {
  it('office-to-pdf: a linked section, INCLUDETEXT and a linked image of $QUIRE_DATA_DIR/server-secret show nothing of it', async () => {
    expect(secret.length).toBeGreaterThanOrEqual(32);
    for (const [name, doc] of [
      ['section.odt', await odtLinkedImage(`file://${secretFile}`, `file://${secretFile}`)],
      ['field.docx', await docxField(`INCLUDETEXT "${secretFile}"`)],
      ['image.docx', await docxLinkedImage(`file://${secretFile}`)],
    ] as const) {
      const text = await convertedText(name, doc);
      expect(text).toContain(VISIBLE);
      expect(text).not.toContain(secret.slice(0, 16));
    }
  }, 300_000);

  it("office-to-pdf: another job's input, named by its real path while that job runs, shows nothing of it", async () => {
    // The other job's page waits 10 s after loading, so its files (a page and a PDF with text,
    // unpacked into its work dir) sit on disk meanwhile.
    const site = await zipOf({
      'index.html': '<!doctype html><p>their page</p>',
      'their.pdf': readFileSync(theirPdf),
    });
    const theirs = await client.submit({
      tool: 'html-to-pdf',
      files: [{ name: 'theirs.zip', data: site }],
      options: { wait_ms: 10_000 },
    });
    let stored: string | undefined;
    for (let i = 0; i < 40 && !stored; i++) {
      stored = fileNamed('their.pdf');
      if (!stored) await new Promise((r) => setTimeout(r, 200));
    }
    expect(stored, 'the other job input is on disk under the data dir').toBeTruthy();
    for (const [name, doc] of [
      ['steal-image.docx', await docxLinkedImage(`file://${stored}`)],
      ['steal-section.odt', await odtLinkedImage(`file://${stored}`, `file://${stored}`)],
    ] as const) {
      const text = await convertedText(name, doc);
      expect(text).toContain(VISIBLE);
      expect(text).not.toContain(OTHER_INPUT);
    }
    expect((await client.waitFor(theirs.id, 120)).status).toBe('succeeded');
  }, 300_000);

  it('html-to-pdf: an iframe of the server secret shows nothing of it', async () => {
    const html = `<!doctype html><h1>${VISIBLE}</h1><iframe src="file://${secretFile}" width="700" height="200"></iframe>`;
    const text = await convertedText('page.html', html, 'html-to-pdf');
    expect(text).toContain(VISIBLE);
    expect(text).not.toContain(secret.slice(0, 16));
  }, 300_000);
});
