// detect-pii and redact's `detect` over real HTTP on a fixture made here with PyMuPDF
// (test/support/pii-fixture.py): planted values of every kind in running text, a table, two columns
// and a scanned page (recognised by `ocr: auto`), copies in the metadata, an annotation and a form
// field, and near misses that fail their checks (a card failing Luhn, an IBAN with a wrong checksum,
// dates that look like phone numbers…). detect-pii finds every planted value (recall 100 %) with
// precision ≥ 95 %, and no value reaches the logs, the job record, the metrics or the database and
// its WAL;
// redact with `detect` leaves none in pdftotext, the decoded content streams (qpdf --qdf), the
// metadata or the annotations of its result, nor in an OCR of its scanned page.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NATIONAL_ID_SCHEMES, PII_KINDS, type PiiMatch } from '../../src/engines/pymupdf/detect.js';
import { PYMUPDF_PYTHON } from '../../src/engines/pymupdf/pymupdf.js';
import type { JobBody } from '../support/client.js';
import { repoRoot } from '../support/corpus.js';
import { toFile } from '../support/pdf.js';
import { useTestServer } from '../support/use-test-server.js';

interface Planted {
  kind: string;
  value: string;
  page: number;
  rect?: [number, number, number, number];
}
interface Fixture {
  planted: Planted[];
  near_misses: string[];
  hidden: Array<{ kind: string; value: string }>;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-pii-'));
const file = path.join(dir, 'people.pdf');
let fixture: Fixture;

const quire = useTestServer({ QUIRE_LOG_LEVEL: 'trace' });
beforeAll(async () => {
  const script = path.join(repoRoot, 'test/support/pii-fixture.py');
  fixture = JSON.parse(execFileSync(PYMUPDF_PYTHON, ['-I', script, file], { encoding: 'utf8' })) as Fixture;
});

const values = () => [...fixture.planted.map((p) => p.value), ...fixture.hidden.map((h) => h.value)];

/** The database and its WAL as they are on disk (SQLite; under PostgreSQL there is neither). */
function databaseFiles(): string {
  const db = path.join(quire.server.dataDir, 'quire.db');
  return [db, `${db}-wal`]
    .filter((each) => existsSync(each))
    .map((each) => readFileSync(each).toString('latin1'))
    .join('\n');
}

/** Where a value is left: the logs, the job as the API shows it, the metrics, the database files. */
async function leaks(job: JobBody): Promise<string[]> {
  const stored = databaseFiles();
  if (process.env.QUIRE_TEST_POSTGRES !== '1') expect(stored).toContain(job.id);
  const shown = JSON.stringify(job);
  const metrics = await (await fetch(`${quire.server.url}/metrics`)).text();
  expect(metrics).toContain('quire_');
  return values().flatMap((value) => [
    ...(quire.server.logs.some((line) => line.includes(value)) ? [`log: ${value}`] : []),
    ...(shown.includes(value) ? [`job: ${value}`] : []),
    ...(metrics.includes(value) ? [`metrics: ${value}`] : []),
    ...(stored.includes(value) ? [`database: ${value}`] : []),
  ]);
}

const overlaps = (a: number[], b: number[]) =>
  a[0]! < b[2]! && b[0]! < a[2]! && a[1]! < b[3]! && b[1]! < a[3]!;

describe('detect-pii', () => {
  it('finds every planted value with its kind, page and rectangle, scanned page included, and few near misses', async () => {
    const job = await quire.client.run({ tool: 'detect-pii', files: [file], options: { ocr: 'auto' } }, 180);
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const report = JSON.parse((await quire.client.download(job.id)).body.toString('utf8')) as {
      counts: Record<string, number>;
      ocr_pages: number[];
      matches: PiiMatch[];
      elsewhere: Record<string, number>;
    };
    expect(report.ocr_pages).toEqual([4]);
    // Recall: every planted value, of its kind, on its page, where it is drawn.
    const missed = fixture.planted.filter(
      (p) =>
        !report.matches.some(
          (m) =>
            m.value === p.value &&
            m.kind === p.kind &&
            m.page === p.page &&
            (!p.rect || m.rects.some((r) => overlaps(r, p.rect!))),
        ),
    );
    expect(missed).toEqual([]);
    // The numbers docs/tools.md gives: 26 planted values, 21 near misses, ten identifier schemes.
    expect(fixture.planted).toHaveLength(26);
    expect(fixture.near_misses).toHaveLength(21);
    const schemes = new Set(report.matches.flatMap((m) => (m.scheme ? [m.scheme] : [])));
    expect([...schemes].sort()).toEqual([...NATIONAL_ID_SCHEMES].sort());
    for (const kind of PII_KINDS)
      expect(
        fixture.planted.some((p) => p.kind === kind),
        kind,
      ).toBe(true);
    // Precision: matches that are planted (the form field's value is drawn on page 1 too).
    const known = new Set(values());
    const wrong = report.matches.filter((m) => !known.has(m.value));
    const precision = (report.matches.length - wrong.length) / report.matches.length;
    expect(precision, JSON.stringify(wrong.map((m) => m.masked))).toBeGreaterThanOrEqual(0.95);
    expect(wrong.map((m) => m.masked)).toEqual([]);
    expect(report.matches.filter((m) => fixture.near_misses.includes(m.value))).toEqual([]);
    // Masked forms say what was found without the value.
    const email = report.matches.find((m) => m.value === 'jane.doe@example.com');
    expect(email?.masked).toBe('j***@example.com');
    const masked = (value: string) => report.matches.find((m) => m.value === value)?.masked;
    expect(masked('4111 1111 1111 1111')).toBe('**** **** **** 1111');
    expect(masked('DE89 3704 0044 0532 0130 00')).toBe('DE** **** **** **** **30 00');
    expect(masked('(202) 555-0143')).toBe('(***) ***-**43');
    expect(masked('192.168.10.42')).toBe('***.***.**.**');
    // docs/tools.md's example report is this one.
    expect(report.counts).toEqual({ email: 4, phone: 4, iban: 3, card: 4, ip: 2, national_id: 10 });
    expect(report.matches).toHaveLength(27);
    expect(email?.rects).toEqual([[170.94, 749.01, 278.91, 762.75]]);
    expect(report.matches.find((m) => m.value === '536-22-8726')).toMatchObject({
      scheme: 'us.ssn',
      rects: [[192.63, 659.01, 249.33, 672.75]],
      masked: '***-**-**26',
    });
    for (const m of report.matches) expect(m.masked).not.toBe(m.value);
    // The metadata, the annotation and the field are counted by place.
    expect(report.elsewhere).toMatchObject({ document_info: 2, annotations: 1, form_fields: 1 });
    // The facts are counts: the values are in the result file only.
    expect(job.result).toMatchObject({ pages: 4, counts: report.counts, ocr_pages: [4] });
    expect(job.result?.matches).toBe(report.matches.length);
    expect(await leaks(job)).toEqual([]);
  }, 240_000);

  it('reads phone numbers without a country code for the region given, and only the kinds asked for', async () => {
    const job = await quire.client.run({
      tool: 'detect-pii',
      files: [file],
      options: { kinds: ['phone'], region: 'DE', ocr: 'off' },
    });
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const report = JSON.parse((await quire.client.download(job.id)).body.toString('utf8')) as {
      matches: PiiMatch[];
    };
    const found = report.matches.map((m) => m.value);
    // +-numbers are found in any region; (202) 555-0143 is a US number only.
    expect(found).toEqual(expect.arrayContaining(['+49 30 901820', '+44 20 7946 0958']));
    expect(found).not.toContain('(202) 555-0143');
    expect(new Set(report.matches.map((m) => m.kind))).toEqual(new Set(['phone']));
    expect(job.result).toMatchObject({ ocr_pages: [], textless_pages: [4] });
  }, 120_000);
});

describe('redact with detect', () => {
  it('leaves no planted value in the text, the decoded content streams, the metadata or the annotations', async () => {
    const job = await quire.client.run(
      { tool: 'redact', files: [file], options: { detect: [...PII_KINDS], ocr: 'auto' } },
      240,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const out = toFile((await quire.client.download(job.id)).body);
    const text = execFileSync('pdftotext', [out, '-'], { encoding: 'utf8' });
    const qdf = `${out}.qdf`;
    execFileSync('qpdf', ['--qdf', '--decode-level=all', '--object-streams=disable', out, qdf]);
    const objects = readFileSync(qdf);
    const info = execFileSync('pdfinfo', ['-meta', out], { encoding: 'utf8' });
    const annotations = execFileSync(
      PYMUPDF_PYTHON,
      [
        '-I',
        '-c',
        'import sys, pymupdf\nfor p in pymupdf.open(sys.argv[1]):\n  for a in p.annots(): print(a.info)\n  for w in p.widgets(): print(w.field_value)',
        out,
      ],
      { encoding: 'utf8' },
    );
    const left = values().flatMap((value) => {
      const forms = [value, value.replace(/[ -]/g, '')];
      return [
        ...(forms.some((f) => text.includes(f)) ? [`pdftotext: ${value}`] : []),
        ...(forms.some((f) => objects.includes(Buffer.from(f, 'latin1'))) ? [`objects: ${value}`] : []),
        ...(forms.some((f) => objects.includes(Buffer.from(f, 'utf16le').swap16()))
          ? [`UTF-16: ${value}`]
          : []),
        ...(info.includes(value) ? [`metadata: ${value}`] : []),
        ...(annotations.includes(value) ? [`annotations: ${value}`] : []),
      ];
    });
    expect(left).toEqual([]);
    // The scanned page's pixels under its values are painted over: an OCR of it reads none of them.
    execFileSync('pdftoppm', ['-r', '150', '-f', '4', '-l', '4', '-singlefile', out, `${out}-4`]);
    const scan = execFileSync('tesseract', [`${out}-4.ppm`, '-'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    expect(scan).toMatch(/Not a card/);
    for (const part of ['alex.smith', 'example.net', '555 0178', '8888 1881'])
      expect(scan, part).not.toContain(part);
    // Unrelated text stays, and near misses on the text pages are not taken.
    expect(text).toContain('for the file of our client');
    for (const miss of ['4111 1111 1111 1112', 'DE88 3704 0044 0532 0130 00', '2024-03-15', '999.12.1.1']) {
      expect(text, miss).toContain(miss);
    }
    // Counts per kind, never a value.
    const detected = job.result?.detected as Record<string, number>;
    for (const kind of PII_KINDS) expect(detected[kind], kind).toBeGreaterThan(0);
    expect(job.result).toMatchObject({ ocr_pages: [4] });
    expect(await leaks(job)).toEqual([]);
  }, 300_000);
});
