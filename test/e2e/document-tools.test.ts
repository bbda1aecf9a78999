// The document tools over real HTTP with the production wiring: form-fields reads a corpus form,
// fill-form's values come back through form-fields, redact reports counts (never the text), and a
// bad regular expression or an unknown field is answered as documented.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { corpusFile } from '../support/corpus.js';
import { toFile } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';

const quire = useTestServer();

const FORM = corpusFile('pdfbox__AcroFormsBasicFields.pdf');

async function fieldValues(file: string): Promise<Map<string, unknown>> {
  const job = await quire.client.run({ tool: 'form-fields', files: [file] });
  expect(job.status).toBe('succeeded');
  const { response, body } = await quire.client.download(job.id);
  expect(response.headers.get('content-type')).toContain('application/json');
  const report = JSON.parse(body.toString('utf8')) as { fields: Array<{ name: string; value: unknown }> };
  return new Map(report.fields.map((f) => [f.name, f.value]));
}

describe('document tools over HTTP', () => {
  it('fills a form and reads the values back with form-fields', async () => {
    expect((await fieldValues(FORM)).get('TextField')).toBeNull();
    const filled = await quire.client.run({
      tool: 'fill-form',
      options: { values: { TextField: 'Über HTTP', Checkbox: true } },
      files: [FORM],
    });
    expect(filled.status).toBe('succeeded');
    expect(filled.result).toMatchObject({ filled: 2, flattened: false });
    const values = await fieldValues(toFile((await quire.client.download(filled.id)).body));
    expect(values.get('TextField')).toBe('Über HTTP');
    expect(values.get('Checkbox')).toBe('Yes');
  });

  it('fails a fill naming an unknown field with form_fields_invalid', async () => {
    const job = await quire.client.run({
      tool: 'fill-form',
      options: { values: { NoSuchField: 'x' } },
      files: [FORM],
    });
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({ code: 'form_fields_invalid', retryable: false });
    expect(job.error?.message).toContain('"NoSuchField"');
  });

  it('redacts a word and reports counts per page without the word', async () => {
    const job = await quire.client.run({
      tool: 'redact',
      options: { texts: ['TraceMonkey'] },
      files: [corpusFile('pdfjs__tracemonkey.pdf')],
    });
    expect(job.status).toBe('succeeded');
    expect(job.result?.text_matches).toBeGreaterThanOrEqual(40);
    expect(JSON.stringify(job)).not.toContain('TraceMonkey');
    const text = execFileSync('pdftotext', [toFile((await quire.client.download(job.id)).body), '-'], {
      encoding: 'utf8',
    });
    expect(text).not.toMatch(/tracemonkey/i);
  });

  it('refuses a pattern that is not a regular expression with 400 invalid_options and its pointer', async () => {
    const response = await quire.client.createJob({
      tool: 'redact',
      options: { patterns: ['ok', '(unclosed'] },
      files: [FORM],
    });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; errors: Array<{ pointer: string }> };
    expect(problem.code).toBe('invalid_options');
    expect(problem.errors.map((e) => e.pointer)).toEqual(['/options/patterns/1']);
  });
});
