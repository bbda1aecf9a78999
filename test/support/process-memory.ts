// Resident memory of a child process (and its peak over time), read from /proc as `ps` would.
import { readFileSync } from 'node:fs';

export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return Number(kib ?? 0) * 1024;
}

/** Samples a process's RSS every `intervalMs` until stopped; `peak()` is the highest seen. */
export function sampleRss(pid: number, intervalMs = 100) {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {
      // The process ended; the peak so far stands.
    }
  }, intervalMs);
  return {
    peak: () => peak,
    stop: () => clearInterval(timer),
  };
}
