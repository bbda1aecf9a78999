import { describe, expect, it } from 'vitest';
import { createProgressReporter, type Progress } from '../../src/tools/framework/progress.js';

describe('progress reporter', () => {
  it('maps steps and fractions onto weights, never decreasing and never reaching 100', () => {
    const seen: Progress[] = [];
    const reporter = createProgressReporter({ download: 10, engine: 80, upload: 10 }, (p) => seen.push(p));
    reporter.step('download');
    reporter.step('engine');
    reporter.fraction(1, 4);
    reporter.fraction(1, 8); // going backwards is ignored
    reporter.fraction(4, 4);
    reporter.step('upload');
    reporter.fraction(1, 1);
    const percents = seen.map((p) => p.percent);
    expect(percents).toEqual([10, 30, 90, 99]);
    expect(seen.at(-1)).toMatchObject({ stage: 'upload', step: 3, steps: 3 });
  });

  it('refuses an undeclared step name', () => {
    const reporter = createProgressReporter({ run: 100 }, () => undefined);
    expect(() => reporter.step('other')).toThrow(/unknown progress step/);
  });
});
