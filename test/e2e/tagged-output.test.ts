// Tagged output over real HTTP: an accessible HTML page (Chromium) and an accessible DOCX
// (LibreOffice), converted with `accessibility: "pdf-ua-1"`, pass PDF/UA-1 as the `validate` tool
// judges it; converted without, they fail it; and veraPDF run directly agrees on all four.
import { beforeAll, describe, expect, it } from 'vitest';
import { ACCESSIBLE_PAGE, accessibleDocx } from '../support/heavy-fixtures.js';
import { toFile } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';
import { verapdfFiles } from '../support/verapdf.js';

let docx: string;

const quire = useTestServer({ QUIRE_WORKER_CONCURRENCY: '2', QUIRE_BROWSER_POOL_SIZE: '1' });
beforeAll(async () => {
  docx = accessibleDocx();
}, 180_000);

interface Verdict {
  compliant: boolean;
  profiles: { profile: string; compliant: boolean; rules: { clause: string; test: number }[] }[];
}

async function convert(tool: string, file: string | { name: string; data: string }, accessibility: string) {
  const job = await quire.client.run({ tool, files: [file], options: { accessibility } }, 150);
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  expect(job.result?.accessibility).toBe(accessibility);
  return toFile((await quire.client.download(job.id)).body);
}

async function validate(pdf: string): Promise<Verdict> {
  const job = await quire.client.run(
    { tool: 'validate', files: [pdf], options: { profile: 'pdfua-1' } },
    150,
  );
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  return JSON.parse((await quire.client.download(job.id)).body.toString('utf8')) as Verdict;
}

describe('tagged output', () => {
  it('a tagged HTML page and DOCX pass PDF/UA-1; their untagged conversions fail it', async () => {
    const page = { name: 'report.html', data: ACCESSIBLE_PAGE };
    const pdfs = {
      htmlUa: await convert('html-to-pdf', page, 'pdf-ua-1'),
      htmlPlain: await convert('html-to-pdf', page, 'none'),
      docxUa: await convert('office-to-pdf', docx, 'pdf-ua-1'),
      docxPlain: await convert('office-to-pdf', docx, 'none'),
    };
    const verdicts = {
      htmlUa: await validate(pdfs.htmlUa),
      htmlPlain: await validate(pdfs.htmlPlain),
      docxUa: await validate(pdfs.docxUa),
      docxPlain: await validate(pdfs.docxPlain),
    };
    expect(verdicts.htmlUa.profiles[0]?.rules).toEqual([]);
    expect(verdicts.htmlUa.compliant).toBe(true);
    expect(verdicts.docxUa.profiles[0]?.rules).toEqual([]);
    expect(verdicts.docxUa.compliant).toBe(true);
    // Untagged: no structure tree (7.1-11) and untagged content (7.1-3), among others.
    for (const plain of [verdicts.htmlPlain, verdicts.docxPlain]) {
      expect(plain.compliant).toBe(false);
      const failed = plain.profiles[0]!.rules.map((r) => `${r.clause}-${r.test}`);
      expect(failed).toContain('7.1-11');
    }
    const direct = await verapdfFiles(Object.values(pdfs), 'ua1');
    for (const [name, pdf] of Object.entries(pdfs)) {
      const ours = verdicts[name as keyof typeof verdicts];
      expect(
        direct.get(pdf)?.map((d) => d.compliant),
        name,
      ).toEqual([ours.compliant]);
    }
  }, 400_000);

  it('tagged alone gives Chromium a structure tree without the PDF/UA identification', async () => {
    const pdf = await convert('html-to-pdf', { name: 'report.html', data: ACCESSIBLE_PAGE }, 'tagged');
    const verdict = await validate(pdf);
    // The only rule left is the metadata stream that pdf-ua-1 adds (ISO 14289-1, 7.1).
    expect(verdict.profiles[0]!.rules.map((r) => `${r.clause}-${r.test}`)).toEqual(['7.1-8']);
  }, 200_000);
});
