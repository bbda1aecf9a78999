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

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux everywhere in practice). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time, in ms, used so far by `pid` and everything below it: each live process's own user and
 * system time plus that of the children it has already reaped (cutime, cstime), so processes that
 * came and went between two readings (a PostgreSQL backend whose connection closed) still count.
 */
export function treeCpuMs(pid: number): number {
  let ticks = 0;
  for (const p of descendants(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // After the command name: state is field 3, utime 14, stime 15, cutime 16, cstime 17.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      for (const index of [11, 12, 13, 14]) ticks += Number(fields[index] ?? 0);
    } catch {
      // Gone between listing and reading: its time is now in its parent's cutime.
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** CPU time, in ms, of the children `pid` has reaped so far (cutime + cstime): engines run and gone. */
export function reapedChildrenCpuMs(pid = process.pid): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}
