// The pdfdiff adapter's pure part: the compare driver's `progress <done> <total>` lines as progress.
import { describe, expect, it } from 'vitest';
import { compareProgressTracker } from '../../../src/engines/pdfdiff/progress.js';

describe('compare driver progress', () => {
  it.each([
    ['progress 3 10', [[3, 10]]],
    ['  progress 10 10  ', [[10, 10]]],
    ['progress 11 10', []],
    ['progress 0 0', []],
    ['progress -1 10', []],
    ['progress 1 of 10', []],
    ['Traceback (most recent call last):', []],
    ['', []],
  ])('reads %j as %j', (line, expected) => {
    const seen: [number, number][] = [];
    compareProgressTracker((done, total) => seen.push([done, total]))(line);
    expect(seen).toEqual(expected);
  });
});
