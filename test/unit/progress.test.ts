import { describe, expect, it } from 'vitest';
import { QpdfPercentTracker } from '../../src/engines/qpdf/progress.js';
import { LineBuffer } from '../../src/process/line-buffer.js';
import { createProgressReporter, type Progress } from '../../src/tools/framework/progress.js';

describe('progress reporter', () => {
  it('maps steps and fractions onto weights, never decreasing and never reaching 100', () => {
    const seen: Progress[] = [];
    const reporter = createProgressReporter({ download: 10, engine: 80, upload: 10 });
    const read = () => seen.push(reporter.read());
    reporter.step('download');
    read();
    reporter.step('engine');
    read();
    reporter.fraction(1, 4);
    read();
    reporter.fraction(1, 8); // going backwards is ignored
    read();
    reporter.fraction(4, 4);
    read();
    reporter.step('upload');
    reporter.fraction(1, 1);
    read();
    const percents = [...new Set(seen.map((p) => p.percent))].filter((p) => p > 0);
    expect(percents).toEqual([10, 30, 90, 99]);
    expect(seen.at(-1)).toMatchObject({ stage: 'upload', step: 3, steps: 3 });
  });

  it('refuses an undeclared step name', () => {
    const reporter = createProgressReporter({ run: 100 });
    expect(() => reporter.step('other')).toThrow(/unknown progress step/);
  });

  it("reads the current engine call's slot as the step's fraction, and keeps what an earlier call reached", () => {
    const reporter = createProgressReporter({ inspect: 20, write: 80 });
    reporter.step('write');
    const first = new LineBuffer();
    reporter.engineSlot().set(new QpdfPercentTracker(first));
    expect(reporter.read().percent).toBe(20);
    first.push('qpdf: out.pdf: write progress: 50%');
    expect(reporter.read().percent).toBe(60);
    first.push('qpdf: out.pdf: write progress: 75%');
    // A second call takes the slot over; the first's reading stays the step's until it passes it.
    const second = new LineBuffer();
    reporter.engineSlot().set(new QpdfPercentTracker(second));
    second.push('qpdf: out.pdf: write progress: 10%');
    expect(reporter.read().percent).toBe(80);
    second.push('qpdf: out.pdf: write progress: 100%');
    expect(reporter.read()).toEqual({ stage: 'write', step: 2, steps: 2, percent: 99 });
  });

  it("leaves the run's lines unparsed in their buffer until the reporter is read", () => {
    const reporter = createProgressReporter({ run: 100 });
    const lines = new LineBuffer();
    reporter.engineSlot().set(new QpdfPercentTracker(lines));
    lines.push('qpdf: out.pdf: write progress: 30%');
    lines.push('qpdf: out.pdf: write progress: 40%');
    expect(lines.drain()).toHaveLength(2);
    expect(reporter.read().percent).toBe(0);
  });
});
