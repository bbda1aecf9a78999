// pages, linearize, repair, flatten and metadata over real HTTP on corpus files: results checked by
// substance (page order by text, qpdf --check and --check-linearization, fields gone, info read-back).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { pageCount, pageText, toFile } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';

const quire = useTestServer();

const fourPages = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');

async function succeed(tool: string, file: string, options?: Record<string, unknown>) {
  const job = await quire.client.run({ tool, files: [file], options });
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  expect(job.progress).toBe(100);
  return { job, file: toFile((await quire.client.download(job.id)).body) };
}

const qpdfExit = (args: string[]) => spawnSync('qpdf', args).status;

describe('pages', () => {
  it('keeps pages in the order given', async () => {
    const { file, job } = await succeed('pages', fourPages, { keep: '4,2,2' });
    expect(pageCount(file)).toBe(3);
    expect(pageText(file, 1)).toBe(pageText(fourPages, 4));
    expect(pageText(file, 3)).toBe(pageText(fourPages, 2));
    expect(job.result).toMatchObject({ pages: 3, input_pages: 4 });
  });

  it.each([
    ['both', { keep: '1', remove: '2' }],
    ['neither', {}],
  ])('refuses %s of keep and remove with 400 invalid_options', async (_label, options) => {
    const response = await quire.client.createJob({ tool: 'pages', options, files: [fourPages] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_options');
  });
});

describe('linearize, repair, flatten', () => {
  it('linearize writes a file qpdf recognises as linearized', async () => {
    const { file } = await succeed('linearize', corpusFile('pdfjs__tracemonkey.pdf'));
    expect(spawnSync('qpdf', ['--check-linearization', file], { encoding: 'utf8' }).stdout).toContain(
      'no linearization errors',
    );
  });

  it('repair turns a damaged file into one that passes qpdf --check; a corrupt one fails pdf_corrupt', async () => {
    const damaged = corpusFile('pdfjs__xref_command_missing.pdf');
    expect(qpdfExit(['--check', damaged])).not.toBe(0);
    const { file, job } = await succeed('repair', damaged);
    expect(qpdfExit(['--check', file])).toBe(0);
    expect(job.result).toMatchObject({ was_damaged: true, clean: true });
    const corrupt = await quire.client.run({ tool: 'repair', files: [corpusFile('ocrmypdf__invalid.pdf')] });
    expect(corrupt.error?.code).toBe('pdf_corrupt');
  });

  it('flatten removes the form fields', async () => {
    const { file } = await succeed('flatten', corpusFile('pypdf-samples__pdflatex-forms.pdf'), {
      what: 'forms',
    });
    const json = spawnSync('qpdf', ['--json=2', '--json-key=acroform', file], { encoding: 'utf8' }).stdout;
    expect(JSON.parse(json).acroform.fields).toEqual([]);
  });
});

describe('metadata', () => {
  it('sets and clears fields that an info job then reads back', async () => {
    const { file } = await succeed('metadata', fourPages, {
      title: 'Quarterly — Q3',
      subject: 'ünïcödé',
      creator: '',
    });
    const info = await succeed('info', file);
    const report = JSON.parse((await quire.client.download(info.job.id)).body.toString('utf8'));
    expect(report.metadata).toMatchObject({ title: 'Quarterly — Q3', subject: 'ünïcödé', creator: null });
  });
});
