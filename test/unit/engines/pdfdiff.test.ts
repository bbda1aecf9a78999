// The pdfdiff adapter's pure part: the compare driver's `progress <done> <total>` lines as progress.

import { describe, expect, it } from 'vitest';
import type { ProgressTracker } from '../../../src/engines/call-options.js';
import { CompareTracker } from '../../../src/engines/pdfdiff/progress.js';
import { LineBuffer } from '../../../src/process/line-buffer.js';

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
    expect(readingsOf((lines) => new CompareTracker(lines), [line])).toEqual(expected);
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
