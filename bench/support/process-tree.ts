// Resident memory of a process together with all its descendants (engine pools live in children:
// LibreOffice and Chromium instances are spawned by the worker, not inside it).
import { readdirSync, readFileSync } from 'node:fs';
import { readMemory } from './memory.js';

/** pid → parent pid for every process visible in /proc. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the ppid; the command name (field 2) may hold spaces, so
      // parse from the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      map.set(Number(entry), ppid);
    } catch {
      // The process ended while we looked.
    }
  }
  return map;
}

/** `pid` and every process below it. */
export function descendants(pid: number): number[] {
  const map = parents();
  const found = [pid];
  for (let i = 0; i < found.length; i++) {
    for (const [child, parent] of map) if (parent === found[i]) found.push(child);
  }
  return found;
}

/** Proportional set size of `pid` (shared pages split among their users), from smaps_rollup. */
function pssBytes(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * Memory of `pid` and its descendants: the sum of VmRSS (what the target is stated in; it counts
 * pages shared between Chromium's processes once per process) and the sum of PSS (the fair total).
 */
export function treeMemory(pid: number): { rssBytes: number; pssBytes: number; processes: number } {
  const pids = descendants(pid);
  let rss = 0;
  let pss = 0;
  for (const p of pids) {
    const reading = readMemory(p)?.rssBytes;
    // Zombies and processes that just exited have no VmRSS line.
    if (reading !== undefined && Number.isFinite(reading)) rss += reading;
    pss += pssBytes(p);
  }
  return { rssBytes: rss, pssBytes: pss, processes: pids.length };
}
