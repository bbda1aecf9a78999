import { describe, expect, it } from 'vitest';
import {
  ghostscriptProgressTracker,
  parseGhostscriptLine,
  parseQpdfProgress,
} from '../../src/engines/progress-parsers.js';

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

describe('ghostscriptProgressTracker', () => {
  it('reports finished pages out of the announced total', () => {
    const seen: [number, number][] = [];
    const feed = ghostscriptProgressTracker((done, total) => seen.push([done, total]));
    for (const line of [
      'GPL Ghostscript 10.00.0',
      'Page 1',
      'Processing pages 1 through 3.',
      'Page 1',
      'Page 2',
      'Page 3',
    ]) {
      feed(line);
    }
    expect(seen).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
  });
});
