// The structure driver's `page n/N` lines become progress; anything else on stderr is ignored.
import { describe, expect, it } from 'vitest';
import { structureProgressTracker } from '../../../src/engines/pymupdf4llm/progress.js';

describe('structure progress', () => {
  it.each([
    ['page 1/50', [[1, 50]]],
    ['page 50/50', [[50, 50]]],
    ['  page 3/7  ', [[3, 7]]],
    ['page 0/50', []],
    ['page 51/50', []],
    ['page 1/0', []],
    ['Traceback (most recent call last):', []],
    ['page one/two', []],
  ])('reads %j', (line, expected) => {
    const seen: number[][] = [];
    structureProgressTracker((d, t) => seen.push([d, t]))(line);
    expect(seen).toEqual(expected);
  });
});
