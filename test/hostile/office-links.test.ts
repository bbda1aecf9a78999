// office-to-pdf's engine against documents that try to pull in content from outside themselves:
// linked images and sections, INCLUDETEXT/INCLUDEPICTURE fields, linked sheets, web-service
// formulas, by file://, relative path and http://. Every conversion must succeed with the
// document's own text and carry no text or image of the files it points at; a local HTTP
// listener must see no request.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLibreoffice } from '../../src/engines/libreoffice/libreoffice.js';
import { pageText } from '../support/pdf.js';
import {
  docxField,
  docxLinkedImage,
  fodpLinkedImage,
  fodsLinkedSheet,
  fodtLinked,
  odtLinkedImage,
  pptxLinkedImage,
  rtfField,
  save,
  VISIBLE,
  xlsxWebService,
} from './office-documents.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'quire-hostile-office-'));
/** Files no conversion may show: a PDF and a PNG with text, the server secret, another job's input. */
const secrets = path.join(root, 'secrets');
const dataDir = path.join(root, 'data');
const jobs = path.join(root, 'jobs');
const ourJob = path.join(jobs, 'quire-ours');
const otherJob = path.join(jobs, 'quire-other');
const SECRET_PDF_TEXT = 'SecretPdf8';
const SERVER_SECRET = 'ServerSecret5';
const OTHER_JOB_TEXT = 'OtherJob6';
let secretPdf: string;
let secretPng: string;

const office = createLibreoffice({
  size: 1,
  recycleAfter: 1000,
  workRoot: path.join(root, 'pools'),
  memoryBytes: 2 * 1024 ** 3,
  timeoutMs: 60_000,
});

let listener: http.Server;
const requests: string[] = [];
let base = '';

beforeAll(async () => {
  for (const dir of [secrets, dataDir, ourJob, otherJob]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  secretPdf = path.join(secrets, 'secret.pdf');
  execFileSync('gs', [
    '-q',
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-sDEVICE=pdfwrite',
    `-sOutputFile=${secretPdf}`,
    '-c',
    `/Helvetica findfont 40 scalefont setfont 72 600 moveto (${SECRET_PDF_TEXT}) show showpage`,
  ]);
  execFileSync('pdftoppm', ['-r', '30', '-png', '-singlefile', secretPdf, path.join(secrets, 'secret')]);
  secretPng = path.join(secrets, 'secret.png');
  writeFileSync(path.join(dataDir, 'server-secret'), `${SERVER_SECRET}\n`, { mode: 0o600 });
  writeFileSync(path.join(otherJob, 'input.txt'), `${OTHER_JOB_TEXT}\n`, { mode: 0o600 });
  listener = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    res.end('Fetched Listener7');
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await office.close();
  await new Promise<void>((r) => listener.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

let counter = 0;
/** Converts `data` as job input `name` and returns what the PDF shows: its text and its images. */
async function convert(name: string, data: string | Buffer): Promise<{ text: string; images: number }> {
  const input = save(ourJob, `${counter++}-${name}`, data);
  const output = path.join(ourJob, `${counter}-out.pdf`);
  await office.toPdf(input, output, { landscape: false }, { workDir: ourJob });
  const listing = execFileSync('pdfimages', ['-list', output], { encoding: 'utf8' }).trim().split('\n');
  return { text: pageText(output).replace(/\s+/g, ' '), images: listing.length - 2 };
}

/** What every conversion here must show: its own text, nothing of the outside, no request. */
function expectNothingFromOutside(result: { text: string; images: number }): void {
  expect(result.text).toContain(VISIBLE);
  for (const leak of [SECRET_PDF_TEXT, SERVER_SECRET, OTHER_JOB_TEXT, 'root:x:0', 'Listener7'])
    expect(result.text).not.toContain(leak);
  expect(result.images).toBe(0);
  expect(requests).toEqual([]);
}

describe('external images', () => {
  it('docx: a picture linked to a local PDF shows no page of it', async () => {
    expectNothingFromOutside(await convert('pdf-link.docx', await docxLinkedImage(`file://${secretPdf}`)));
  }, 120_000);

  it('docx: a picture linked to a local PNG is not drawn', async () => {
    expectNothingFromOutside(await convert('png-link.docx', await docxLinkedImage(`file://${secretPng}`)));
  }, 120_000);

  it('docx: a picture linked over http:// is neither fetched nor drawn', async () => {
    expectNothingFromOutside(await convert('http-link.docx', await docxLinkedImage(`${base}/image.png`)));
  }, 120_000);

  it('odt: draw:image linked to /usr/share/pixmaps/debian-logo.png is not drawn', async () => {
    const odt = await odtLinkedImage('file:///usr/share/pixmaps/debian-logo.png');
    expectNothingFromOutside(await convert('logo.odt', odt));
  }, 120_000);

  it('fodt: draw:image linked to a local PDF by file:// shows no page of it', async () => {
    expectNothingFromOutside(await convert('pdf-link.fodt', fodtLinked(`file://${secretPdf}`)));
  }, 120_000);

  it('odt: a relative link climbing to another folder is not followed', async () => {
    const odt = await odtLinkedImage(`../../../../../../../../..${secretPng}`);
    expectNothingFromOutside(await convert('relative.odt', odt));
  }, 120_000);

  it('pptx: a slide picture linked to a local PDF shows no page of it', async () => {
    expectNothingFromOutside(await convert('pdf-link.pptx', await pptxLinkedImage(`file://${secretPdf}`)));
  }, 120_000);

  it('fodp: a slide picture linked to a local PNG is not drawn', async () => {
    expectNothingFromOutside(await convert('png-link.fodp', fodpLinkedImage(`file://${secretPng}`)));
  }, 120_000);
});

describe('linked text', () => {
  it('docx: INCLUDETEXT of /etc/passwd shows none of it', async () => {
    expectNothingFromOutside(await convert('passwd.docx', await docxField('INCLUDETEXT "/etc/passwd"')));
  }, 120_000);

  it('docx: INCLUDETEXT of the server secret shows none of it', async () => {
    const secret = path.join(dataDir, 'server-secret');
    expectNothingFromOutside(await convert('secret.docx', await docxField(`INCLUDETEXT "${secret}"`)));
  }, 120_000);

  it("docx: INCLUDETEXT of another job's input, by relative path, shows none of it", async () => {
    const docx = await docxField('INCLUDETEXT "../quire-other/input.txt"');
    expectNothingFromOutside(await convert('other-job.docx', docx));
  }, 120_000);

  it('docx: INCLUDEPICTURE of a local PNG is not drawn', async () => {
    expectNothingFromOutside(await convert('picture.docx', await docxField(`INCLUDEPICTURE "${secretPng}"`)));
  }, 120_000);

  it('docx: a LINK field to a local PDF shows no page of it', async () => {
    const docx = await docxField(`LINK AcroExch.Document "${secretPdf}" "" \\a \\p`);
    expectNothingFromOutside(await convert('ole-link.docx', docx));
  }, 120_000);

  it('rtf: INCLUDETEXT of /etc/passwd shows none of it', async () => {
    expectNothingFromOutside(await convert('passwd.rtf', rtfField('INCLUDETEXT "/etc/passwd"')));
  }, 120_000);

  it('rtf: INCLUDEPICTURE of a local PNG over file:// is not drawn', async () => {
    expectNothingFromOutside(
      await convert('picture.rtf', rtfField(`INCLUDEPICTURE "file://${secretPng}" \\d`)),
    );
  }, 120_000);

  it('fodt: a section linked to the server secret shows none of it', async () => {
    const fodt = fodtLinked(`file://${secretPng}`, `file://${path.join(dataDir, 'server-secret')}`);
    expectNothingFromOutside(await convert('section.fodt', fodt));
  }, 120_000);

  it('odt: a section linked to /etc/passwd shows none of it', async () => {
    expectNothingFromOutside(
      await convert('section.odt', await odtLinkedImage(`file://${secretPng}`, 'file:///etc/passwd')),
    );
  }, 120_000);
});

describe('linked sheets and web formulas', () => {
  it('fods: a sheet linked to /etc/passwd shows none of it', async () => {
    expectNothingFromOutside(await convert('linked.fods', fodsLinkedSheet('file:///etc/passwd')));
  }, 120_000);

  it("fods: a sheet linked to another job's input shows none of it", async () => {
    const fods = fodsLinkedSheet(`file://${path.join(otherJob, 'input.txt')}`);
    expectNothingFromOutside(await convert('other-job.fods', fods));
  }, 120_000);

  it('xlsx: WEBSERVICE to a local listener sends no request', async () => {
    expectNothingFromOutside(await convert('web.xlsx', await xlsxWebService(`${base}/webservice`)));
  }, 120_000);
});
