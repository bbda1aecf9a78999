// The creation-time bound of a chain of steps (tools/framework/least-output.ts): what it makes at the least
// from a one-page input, against the plan's pages and fan-out (docs/api.md §5, whole-job limits).
import { describe, expect, it } from 'vitest';
import { checkLeastOutput } from '../../src/tools/framework/least-output.js';
import type { PublishedTool } from '../../src/tools/framework/types.js';
import { tools } from '../../src/tools/registry.js';

const FREE = { maxPages: 200, maxFanOut: 200 };
const x = (copies: number) => ({ keep: Array.from({ length: copies }, () => '1-z').join(',') });
const ranges = (count: number) => ({
  mode: 'ranges',
  ranges: Array.from({ length: count }, (_, i) => String(i + 1)),
});

function chain(...steps: [string, Record<string, unknown>?][]) {
  return steps.map(([name, options]) => ({
    tool: tools.find((t) => t.name === name) as PublishedTool,
    options: options ?? {},
  }));
}

function outcome(steps: ReturnType<typeof chain>): string {
  try {
    checkLeastOutput(steps, FREE);
    return 'accepted';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('least output of a chain', () => {
  it.each([
    [
      'pages ×50, split, pages ×50, split, pages ×50',
      chain(['pages', x(50)], ['split'], ['pages', x(50)], ['split'], ['pages', x(50)]),
      'limit_pages_exceeded',
    ],
    [
      'pages ×50, split, pages ×5 (250 pages)',
      chain(['pages', x(50)], ['split'], ['pages', x(5)]),
      'limit_pages_exceeded',
    ],
    [
      'pages ×50, split, pages ×4 (200 pages)',
      chain(['pages', x(50)], ['split'], ['pages', x(4)]),
      'accepted',
    ],
    ['pages ×201 alone', chain(['pages', x(201)]), 'limit_pages_exceeded'],
    [
      'split into 201 ranges, then rotate',
      chain(['split', ranges(201)], ['rotate', { angle: 90 }]),
      'job_limit_exceeded',
    ],
    [
      'split into 150 ranges, rotate, then split each',
      chain(['split', ranges(150)], ['rotate', { angle: 90 }], ['split']),
      'accepted',
    ],
    [
      'pages ×20, split, pages ×10, split: 20 + 200 files fanned out',
      chain(['pages', x(20)], ['split'], ['pages', x(10)], ['split'], ['compress']),
      'job_limit_exceeded',
    ],
    [
      'pages ×100, compress, split, rotate: pages are kept through compress',
      chain(
        ['pages', x(100)],
        ['compress'],
        ['split', { mode: 'every', pages: 1 }],
        ['rotate', { angle: 90 }],
      ),
      'accepted',
    ],
    [
      'pages ×150, pdf-to-images, then images-to-pdf: parts of unknown count end the walk',
      chain(['pages', x(150)], ['pdf-to-images'], ['images-to-pdf']),
      'accepted',
    ],
  ])('%s: %s', (_name, steps, expected) => {
    expect(outcome(steps)).toBe(expected);
  });
});
