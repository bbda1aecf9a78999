// qpdf's pure parts: exit/stderr mapping, --progress parsing and the encryption job JSON.
import { describe, expect, it } from 'vitest';
import { encryptionJob, qpdfRestrictions } from '../../../src/engines/qpdf/encrypt.js';
import { qpdfFailure } from '../../../src/engines/qpdf/failure.js';
import {
  parseQpdfProgress,
  QpdfPartsTracker,
  QpdfPercentTracker,
} from '../../../src/engines/qpdf/progress.js';
import { LineBuffer } from '../../../src/process/line-buffer.js';
import type { RunResult } from '../../../src/process/runner.js';
import { runResult as result } from './run-result.js';

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

describe('parseQpdfProgress', () => {
  const cases: [string, number | undefined][] = [
    ['qpdf: out.pdf: write progress: 0%', 0],
    ['qpdf: out.pdf: write progress: 42%', 0.42],
    ['qpdf: /tmp/a b: c.pdf: write progress: 100%', 1],
    ['qpdf: out.pdf: write progress: 7%\r', 0.07],
    ['WARNING: in.pdf: file is damaged', undefined],
    ['', undefined],
  ];
  it.each(cases)('%j → %s', (line, expected) => {
    expect(parseQpdfProgress(line)).toBe(expected);
  });
});

describe('qpdf progress trackers', () => {
  it("reads a write's last percent, and a split's parts as the 100 % lines seen", () => {
    const write = new LineBuffer();
    const percent = new QpdfPercentTracker(write);
    expect(percent.read()).toBeUndefined();
    write.push('qpdf: out.pdf: write progress: 12%');
    write.push('qpdf: out.pdf: write progress: 42%');
    expect(percent.read()).toEqual({ done: 42, total: 100 });
    const parts = new QpdfPartsTracker(3);
    for (const p of [50, 100, 0, 100]) parts.lines.push(`qpdf: out.pdf: write progress: ${p}%`);
    expect(parts.read()).toEqual({ done: 2, total: 3 });
    parts.lines.push('qpdf: out.pdf: write progress: 100%');
    expect(parts.read()).toEqual({ done: 3, total: 3 });
  });

  it("counts a split's parts whole when more were written between two reads than its buffer holds", () => {
    const parts = new QpdfPartsTracker(1_000);
    for (let part = 0; part < 600; part++)
      for (const p of [0, 50, 100]) parts.lines.push(`qpdf: out.pdf: write progress: ${p}%`);
    expect(parts.lines.dropped).toBeGreaterThan(0);
    expect(parts.read()).toEqual({ done: 600, total: 1_000 });
  });
});

const ALL = {
  print: true,
  print_high_res: true,
  modify: true,
  copy: true,
  annotate: true,
  fill_forms: true,
  accessibility: true,
  assemble: true,
};

describe('qpdf encryption job', () => {
  it('maps catalogue permissions to qpdf restrictions', () => {
    expect(qpdfRestrictions(ALL)).toEqual({
      print: 'full',
      modifyOther: 'y',
      extract: 'y',
      annotate: 'y',
      form: 'y',
      accessibility: 'y',
      assemble: 'y',
    });
    expect(qpdfRestrictions({ ...ALL, print_high_res: false, copy: false }).print).toBe('low');
    expect(qpdfRestrictions({ ...ALL, print: false }).print).toBe('none');
  });

  it('uses the 128-bit group with AES for aes-128', () => {
    const job = encryptionJob('/i.pdf', '/o.pdf', {
      userPassword: 'u',
      ownerPassword: 'o',
      algorithm: 'aes-128',
      permissions: ALL,
    });
    expect(job).toMatchObject({
      encrypt: { userPassword: 'u', ownerPassword: 'o', '128bit': { useAes: 'y' } },
    });
  });
});
