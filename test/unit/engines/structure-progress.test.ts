// The structure driver's `page n/N` lines become progress; anything else on stderr is ignored.

import { describe, expect, it } from 'vitest';
import type { ProgressTracker } from '../../../src/engines/call-options.js';
import { StructureTracker } from '../../../src/engines/pymupdf4llm/progress.js';
import { LineBuffer } from '../../../src/process/line-buffer.js';

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
    expect(readingsOf((lines) => new StructureTracker(lines), [line])).toEqual(expected);
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
