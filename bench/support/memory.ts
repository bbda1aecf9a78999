// Server memory from /proc: current resident set (VmRSS) and the kernel's high-water mark (VmHWM).
import { readFileSync } from 'node:fs';

export interface MemoryReading {
  rssBytes: number;
  hwmBytes: number;
}

/** Reads VmRSS and VmHWM of `pid`; undefined once the process is gone. */
export function readMemory(pid: number): MemoryReading | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssBytes: kib('VmRSS') * 1024, hwmBytes: kib('VmHWM') * 1024 };
}

/** Samples a process's RSS on a fixed interval and keeps the largest value seen. */
export class RssSampler {
  peakRssBytes = 0;
  samples = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 50,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  private sample(): void {
    const reading = readMemory(this.pid);
    if (!reading) return;
    this.samples += 1;
    this.peakRssBytes = Math.max(this.peakRssBytes, reading.rssBytes);
  }
}
