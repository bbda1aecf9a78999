import { describe, expect, it } from 'vitest';
import { ghostscriptFailure, popplerFailure, qpdfFailure } from '../../src/engines/failure-map.js';
import type { RunResult } from '../../src/process/runner.js';

const result = (exitCode: number | null, stderrTail = '', extra: Partial<RunResult> = {}): RunResult => ({
  exitCode,
  signal: null,
  stderrTail,
  stdout: '',
  stdoutTruncated: false,
  durationMs: 1,
  ...extra,
});

describe('qpdfFailure', () => {
  const cases: [string, RunResult, boolean, string | undefined][] = [
    ['success', result(0), false, undefined],
    ['warnings only', result(3, 'WARNING: x.pdf: file is damaged'), false, undefined],
    ['needs a password', result(2, 'qpdf: /w/in.pdf: invalid password\n'), false, 'pdf_encrypted'],
    ['wrong password', result(2, 'qpdf: /w/in.pdf: invalid password\n'), true, 'invalid_password'],
    [
      'unrecoverable damage',
      result(2, 'qpdf: in.pdf: unable to find trailer dictionary while recovering damaged file'),
      false,
      'pdf_corrupt',
    ],
    ['empty file', result(2, "WARNING: e.pdf: can't find PDF header"), false, 'pdf_corrupt'],
    ['other error', result(2, 'qpdf: open out.pdf: Permission denied'), false, 'engine_failed'],
    ['crash', result(null, '', { signal: 'SIGBUS' }), false, 'engine_failed'],
  ];
  it.each(cases)('%s → %s', (_name, run, passwordGiven, code) => {
    expect(qpdfFailure(run, { passwordGiven })?.code).toBe(code);
  });

  it('throws the limit errors before any mapping', () => {
    expect(() => qpdfFailure(result(null, '', { limitHit: 'memory' }), { passwordGiven: false })).toThrow(
      expect.objectContaining({ code: 'engine_memory_exceeded' }),
    );
    expect(() => qpdfFailure(result(null, '', { limitHit: 'cpu' }), { passwordGiven: false })).toThrow(
      expect.objectContaining({ code: 'timeout' }),
    );
  });
});

describe('ghostscriptFailure', () => {
  const cases: [string, RunResult, string | undefined][] = [
    ['success', result(0, 'Page 1\nPage 2'), undefined],
    [
      'exit 0 after an unreadable file',
      result(0, "   **** Error: Couldn't initialise file.\n"),
      'pdf_corrupt',
    ],
    ['encrypted', result(0, '   **** This file requires a password for access.'), 'pdf_encrypted'],
    ['failure', result(1, 'GPL Ghostscript: unknown device'), 'engine_failed'],
  ];
  it.each(cases)('%s → %s', (_name, run, code) => {
    expect(ghostscriptFailure(run)?.code).toBe(code);
  });
});

describe('popplerFailure', () => {
  const cases: [string, RunResult, string | undefined][] = [
    ['success', result(0), undefined],
    ['password', result(1, 'Command Line Error: Incorrect password'), 'pdf_encrypted'],
    ['empty', result(1, 'Syntax Error: Document stream is empty'), 'pdf_corrupt'],
    ['other', result(99, ''), 'engine_failed'],
  ];
  it.each(cases)('%s → %s', (_name, run, code) => {
    expect(popplerFailure(run)?.code).toBe(code);
  });
});
