// The cores one job may use: divided among the jobs running in this process, never below one.
import { afterEach, describe, expect, it } from 'vitest';
import { cpuShare, jobStarted } from '../../src/tools/framework/cpu-share.js';

const left: (() => void)[] = [];
afterEach(() => {
  for (const leave of left.splice(0)) leave();
});

const start = (n: number) => {
  for (let i = 0; i < n; i++) left.push(jobStarted());
};

describe('cpuShare', () => {
  it('gives a job running alone every core', () => {
    start(1);
    expect(cpuShare(2)).toBe(2);
    expect(cpuShare(8)).toBe(8);
  });

  it('divides the cores among the running jobs, rounding down, never below one', () => {
    start(2);
    expect(cpuShare(2)).toBe(1);
    expect(cpuShare(8)).toBe(4);
    start(1);
    expect(cpuShare(8)).toBe(2);
    expect(cpuShare(2)).toBe(1);
  });

  it('counts a job once however often it leaves', () => {
    start(2);
    const leave = jobStarted();
    expect(cpuShare(6)).toBe(2);
    leave();
    leave();
    expect(cpuShare(6)).toBe(3);
  });
});
