// Ghostscript's pure parts: the pdfwrite argv, exit/stderr mapping and the `Page N` progress parser.

import { describe, expect, it } from 'vitest';
import type { ProgressTracker } from '../../../src/engines/call-options.js';
import { ghostscriptFailure } from '../../../src/engines/ghostscript/failure.js';
import { pdfwriteArgs } from '../../../src/engines/ghostscript/ghostscript.js';
import { GhostscriptTracker, parseGhostscriptLine } from '../../../src/engines/ghostscript/progress.js';
import { LineBuffer } from '../../../src/process/line-buffer.js';
import type { RunResult } from '../../../src/process/runner.js';
import { runResult as result } from './run-result.js';

describe('pdfwriteArgs', () => {
  it('runs safely, batch, with page lines on stderr and the level’s targets', () => {
    const args = pdfwriteArgs('/w/in.pdf', '/w/out%d.pdf', { level: 'medium', grayscale: false });
    expect(args.slice(0, 4)).toEqual(['-dSAFER', '-dBATCH', '-dNOPAUSE', '-sstdout=%stderr']);
    expect(args).toContain('-dColorImageResolution=144');
    expect(args).toContain('-dColorImageDownsampleThreshold=1.389');
    expect(args).toContain('-sOutputFile=/w/out%%d.pdf');
    expect(args.at(-1)).toBe('/w/in.pdf');
    expect(args).not.toContain('-q');
  });

  it('high adds a stronger JPEG QFactor; grayscale converts colour', () => {
    const args = pdfwriteArgs('/w/in.pdf', '/w/out.pdf', { level: 'high', grayscale: true });
    expect(args).toContain('-dColorImageResolution=72');
    expect(args.join(' ')).toMatch(/QFactor 1\.3/);
    expect(args).toContain('-sColorConversionStrategy=Gray');
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

describe('parseGhostscriptLine', () => {
  const cases: [string, ReturnType<typeof parseGhostscriptLine>][] = [
    ['Processing pages 1 through 18.', { kind: 'total', pages: 18 }],
    ['Processing pages 3 through 5.', { kind: 'total', pages: 3 }],
    ['Page 7', { kind: 'page', page: 7 }],
    ['Page 12 ', { kind: 'page', page: 12 }],
    ["   **** Error: Couldn't initialise file.", undefined],
    ['Page size 612x792', undefined],
  ];
  it.each(cases)('%j → %j', (line, expected) => {
    expect(parseGhostscriptLine(line)).toEqual(expected);
  });
});

describe('GhostscriptTracker', () => {
  it('reports finished pages out of the announced total', () => {
    const seen = readingsOf(
      (lines) => new GhostscriptTracker(lines),
      ['GPL Ghostscript 10.00.0', 'Page 1', 'Processing pages 1 through 3.', 'Page 1', 'Page 2', 'Page 3'],
    );
    expect(seen).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
  });
});

/** Feeds `lines` one at a time, reading the tracker after each: the readings that changed, in order. */
function readingsOf(make: (lines: LineBuffer) => ProgressTracker, lines: string[]): [number, number][] {
  const buffer = new LineBuffer();
  const tracker = make(buffer);
  const seen: [number, number][] = [];
  for (const line of lines) {
    buffer.push(line);
    const now = tracker.read();
    const last = seen.at(-1);
    if (now && (now.done !== last?.[0] || now.total !== last?.[1])) seen.push([now.done, now.total]);
  }
  return seen;
}
