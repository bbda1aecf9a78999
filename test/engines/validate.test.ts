// Engine tier: the `validate` tool's warm veraPDF JVM (in its sandbox) against veraPDF's own command
// line, run directly on the same corpus files: the known PDF/A files (each against the conformance it
// claims) and the tagged ones (against PDF/UA-1) get the same verdict and the same failed rules.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeEngines, createEngines } from '../../src/engines/index.js';
import type { ProfileReport } from '../../src/engines/verapdf/report.js';
import { isAbortedError } from '../../src/process/runner.js';
import { openAndRun } from '../../src/tools/framework/inputs.js';
import { validateTool } from '../../src/tools/validate.js';
import { readManifest } from '../support/corpus.js';
import { eventually } from '../support/process-state.js';
import { corpus, makeToolContext } from '../support/tool-context.js';
import { ensureVerapdf, type VerapdfVerdict, verapdfFiles } from '../support/verapdf.js';

const MAIN_ROOT = '/tmp/quire-pools-validate-main';
const IMPATIENT_ROOT = '/tmp/quire-pools-validate-impatient';
const engines = createEngines({
  timeoutMs: 120_000,
  memoryBytes: 2 * 1024 ** 3,
  heavy: {
    isolateNetwork: true,
    workRoot: MAIN_ROOT,
    ocrTimeoutMs: 120_000,
    office: { size: 1, recycleAfter: 5, timeoutMs: 60_000 },
    browser: { size: 1, recycleAfter: 5, timeoutMs: 60_000 },
    validator: { size: 1, recycleAfter: 100, timeoutMs: 120_000 },
  },
});
/** A validator whose time limit a 352-page book breaks (it takes seconds even on a warm JVM). */
const impatient = createEngines({
  timeoutMs: 120_000,
  memoryBytes: 2 * 1024 ** 3,
  heavy: {
    isolateNetwork: true,
    workRoot: IMPATIENT_ROOT,
    ocrTimeoutMs: 120_000,
    office: { size: 1, recycleAfter: 5, timeoutMs: 60_000 },
    browser: { size: 1, recycleAfter: 5, timeoutMs: 60_000 },
    validator: { size: 1, recycleAfter: 100, timeoutMs: 1_500 },
  },
});
afterAll(() => Promise.all([closeEngines(engines), closeEngines(impatient)]));

/** Whether a JVM of the pool under `root` holds a job's file (validator-pool.ts copies it in). */
function validating(root: string): boolean {
  const instances = path.join(root, 'verapdf');
  return readdirSync(instances).some((dir) => existsSync(path.join(instances, dir, 'exchange', 'input.pdf')));
}

/** The sandboxes of running veraPDF JVMs whose pool keeps its folders under `root` (bwrap's binds name them). */
function workers(root: string): string[] {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.startsWith('/usr/bin/bwrap') && l.includes(`${root}/`) && l.includes('VeraWorker'));
}

const rows = readManifest().filter((r) => r.file.endsWith('.pdf'));
/** The corpus files that claim a PDF/A level (auto picks it up) and the tagged ones (PDF/UA-1). */
/** Files that open without a password: an owner-only encrypted one is validated as it is. */
const opens = rows.filter((r) => r.encrypted !== 'user-password');
const claimsPdfa = opens.filter((r) => r.features.some((f) => /^pdfa-\d/.test(f)));
const tagged = opens.filter((r) => r.features.includes('tagged'));

/** The job's error code when the tool refuses the file. */
async function refusal(file: string, profile: string): Promise<string | undefined> {
  return validate(file, profile).then(
    () => undefined,
    (err: unknown) => (err as { code?: string }).code,
  );
}

async function validate(file: string, profile: string, using = engines) {
  const test = await makeToolContext({ tool: validateTool, files: [file], options: { profile } });
  test.ctx.engines = using;
  try {
    const output = await openAndRun(validateTool, test.ctx);
    const report = JSON.parse(await readFile(output.path, 'utf8')) as {
      compliant: boolean;
      profiles: ProfileReport[];
    };
    return { output, report };
  } finally {
    await test.cleanup();
  }
}

/** The CLI's `clause-test` names of a report's failed rules, sorted. */
const ruleNames = (r: ProfileReport) => r.rules.map((rule) => `${rule.clause}-${rule.test}`).sort();

let direct: { auto: Map<string, VerapdfVerdict[]>; ua1: Map<string, VerapdfVerdict[]> };
beforeAll(async () => {
  ensureVerapdf();
  // One CLI run per flavour over all the files: each is a cold JVM of a few seconds.
  const [auto, ua1] = await Promise.all([
    verapdfFiles(
      claimsPdfa.map((r) => corpus(r.file)),
      '0',
    ),
    verapdfFiles(
      tagged.map((r) => corpus(r.file)),
      'ua1',
    ),
  ]);
  direct = { auto, ua1 };
}, 120_000);

describe('validate against veraPDF run directly', () => {
  it('the corpus has PDF/A and tagged files to compare', () => {
    expect(claimsPdfa.length).toBeGreaterThanOrEqual(5);
    expect(tagged.length).toBeGreaterThanOrEqual(4);
  });

  it('gives each PDF/A file the verdict and failed rules of the conformance it claims', async () => {
    for (const row of claimsPdfa) {
      const expected = direct.auto.get(corpus(row.file)) ?? [];
      // A file veraPDF's parser cannot read gets no report there and `pdf_corrupt` here.
      if (expected.length === 0) {
        expect(await refusal(row.file, 'auto'), row.file).toBe('pdf_corrupt');
        continue;
      }
      const { report } = await validate(row.file, 'auto');
      expect(
        report.profiles.map((p) => p.compliant),
        row.file,
      ).toEqual(expected.map((e) => e.compliant));
      expect(report.profiles.map(ruleNames), row.file).toEqual(
        expected.map((e) => [...e.failedRules].sort()),
      );
    }
    // The two conformance-suite files say which way they go in their names.
    const pass = claimsPdfa.find((r) => r.features.includes('pdfa-valid'));
    const fail = claimsPdfa.find((r) => r.features.includes('pdfa-invalid'));
    expect(direct.auto.get(corpus(pass!.file))?.[0]?.compliant).toBe(true);
    expect(direct.auto.get(corpus(fail!.file))?.[0]?.compliant).toBe(false);
  }, 300_000);

  it('kills a validation past its time limit with its JVM and fails it with timeout', async () => {
    const running = validate('pdfjs__freeculture.pdf', 'pdfua-1', impatient).then(
      () => undefined,
      (e: unknown) => e as { code?: string },
    );
    await eventually(() => workers(IMPATIENT_ROOT).length > 0, 60_000);
    const hung = workers(IMPATIENT_ROOT);
    expect(hung.length).toBeGreaterThan(0);
    expect((await running)?.code).toBe('timeout');
    // The JVM that hung is gone with its process group (the pool may have started its successor).
    await eventually(() => !workers(IMPATIENT_ROOT).some((w) => hung.includes(w)));
    expect(workers(IMPATIENT_ROOT).filter((w) => hung.includes(w))).toEqual([]);
  }, 180_000);

  it('kills the JVM of a canceled validation and validates the next file on a fresh one', async () => {
    const test = await makeToolContext({
      tool: validateTool,
      files: ['pdfjs__freeculture.pdf'],
      options: { profile: 'pdfua-1' },
    });
    test.ctx.engines = engines;
    const running = openAndRun(validateTool, test.ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Canceled while its JVM validates: the file sits in that JVM's exchange folder.
    await eventually(() => validating(MAIN_ROOT), 60_000);
    expect(validating(MAIN_ROOT)).toBe(true);
    const busy = workers(MAIN_ROOT);
    expect(busy.length).toBeGreaterThan(0);
    test.abort.abort(new Error('canceled by the test'));
    expect(isAbortedError(await running)).toBe(true);
    await test.cleanup();
    await eventually(() => !workers(MAIN_ROOT).some((w) => busy.includes(w)));
    expect(workers(MAIN_ROOT).filter((w) => busy.includes(w))).toEqual([]);
    const { report } = await validate('verapdf__veraPDF_test_suite_6-8-t02-pass-a.pdf', 'auto');
    expect(report.compliant).toBe(true);
  }, 180_000);

  it('refuses a file that needs a password and a file that is no PDF with stable codes', async () => {
    expect(await refusal('qpdf__c-r4.pdf', 'auto')).toBe('pdf_encrypted');
    expect(await refusal('ocrmypdf__invalid.pdf', 'auto')).toBe('pdf_corrupt');
    // qpdf rebuilds its looping cross-reference chain; veraPDF's parser gives up (LoopedException).
    expect(await refusal('qpdf__append-xref-loop.pdf', 'auto')).toBe('pdf_corrupt');
  }, 120_000);

  it('refuses an owner-password file veraPDF decrypts wrongly with pdf_encrypted, not pdf_corrupt', async () => {
    // A one-page PDF made here with object streams, encrypted by `qpdf --encrypt '' <owner> 256`: on
    // some random salts veraPDF derives a wrong key, and the objects it decrypts do not parse.
    const file = path.resolve('test/fixtures/verapdf-misdecrypted-r6.pdf');
    const direct = await engines.verapdf.validate(file, 'auto', { workDir: path.dirname(file) }).then(
      () => 'validated',
      (err: unknown) => (err as { code?: string }).code,
    );
    expect(direct, 'veraPDF alone cannot parse it').toBe('pdf_corrupt');
    expect(execFileSync('qpdf', ['--show-encryption', file], { encoding: 'utf8' })).toMatch(/^R = 6$/m);
    expect(await refusal(file, 'auto')).toBe('pdf_encrypted');
  }, 120_000);

  it('gives each tagged file the PDF/UA-1 verdict and failed rules, with clause, description, count and pages', async () => {
    for (const row of tagged) {
      const expected = direct.ua1.get(corpus(row.file)) ?? [];
      if (expected.length === 0) {
        expect(await refusal(row.file, 'pdfua-1'), row.file).toBe('pdf_corrupt');
        continue;
      }
      const { report, output } = await validate(row.file, 'pdfua-1');
      expect(report.profiles.map((p) => p.profile)).toEqual(['pdfua-1']);
      expect(
        report.profiles.map((p) => p.compliant),
        row.file,
      ).toEqual(expected.map((e) => e.compliant));
      expect(report.profiles.map(ruleNames), row.file).toEqual(
        expected.map((e) => [...e.failedRules].sort()),
      );
      expect(output.facts).toMatchObject({ compliant: report.compliant, profiles: ['pdfua-1'] });
      for (const rule of report.profiles[0]!.rules) {
        expect(rule.specification).toBe('ISO 14289-1:2014');
        expect(rule.description.length).toBeGreaterThan(10);
        expect(rule.count).toBeGreaterThan(0);
        for (const page of rule.pages) expect(page).toBeGreaterThanOrEqual(1);
      }
    }
  }, 300_000);
});
