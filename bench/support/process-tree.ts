// Resident memory of a process together with all its descendants (engine pools live in children:
// LibreOffice and Chromium instances are spawned by the worker, not inside it).
import { readdirSync, readFileSync } from 'node:fs';
import { readMemory } from './memory.js';

/** pid → parent pid for every process visible in /proc. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // Field 4 of /proc/<pid>/stat is the ppid; a process that ended while we looked is left out.
    const fields = statFields(Number(entry));
    if (fields) map.set(Number(entry), Number(fields[1]));
  }
  return map;
}

/** The parent of `pid`, or undefined when it has ended. */
export function parentOf(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : undefined;
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
/** utime, stime, cutime and cstime (fields 14–17 of /proc/<pid>/stat) in `statFields`. */
const UTIME = 11;
const STIME = 12;
const CUTIME = 13;
const CSTIME = 14;

/**
 * CPU time, in ms, used so far by `pid` and everything below it: each live process's own user and
 * system time plus that of the children it has already reaped (cutime, cstime), so processes that
 * came and went between two readings (a PostgreSQL backend whose connection closed) still count.
 */
export function treeCpuMs(pid: number): number {
  let ticks = 0;
  for (const p of descendants(pid)) {
    // Gone between listing and reading: its time is now in its parent's cutime.
    const fields = statFields(p);
    if (fields) for (const index of [UTIME, STIME, CUTIME, CSTIME]) ticks += Number(fields[index] ?? 0);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** CPU time (user + system), in ms, of `pid` itself so far; 0 once it is gone. */
export function ownCpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields ? ((Number(fields[UTIME]) + Number(fields[STIME])) * 1000) / TICKS_PER_SECOND : 0;
}

/**
 * User-mode CPU time, in ms, of `pid` itself so far: its own code, without the kernel's work for it
 * (copying written bytes into the page cache, which on this VM varies 10× from run to run).
 */
export function ownUserCpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[UTIME]) * 1000) / TICKS_PER_SECOND : 0;
}

/** CPU time, in ms, of the children `pid` has reaped so far (cutime + cstime): engines run and gone. */
export function reapedChildrenCpuMs(pid = process.pid): number {
  const fields = statFields(pid);
  if (!fields) throw new Error(`no process ${pid}`);
  return ((Number(fields[CUTIME]) + Number(fields[CSTIME])) * 1000) / TICKS_PER_SECOND;
}

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces, so the split starts
 * at the last ')'): index 0 is the state (field 3); undefined once the process is gone.
 */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}
