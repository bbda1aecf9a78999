// Whether a process is still there, and waiting for a condition on processes: shared by the tests
// that check engines and their grandchildren die with their runner or the service.
import { readFileSync } from 'node:fs';

/** Alive means present and not a zombie (a container's PID 1 may be slow to reap). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `check` every 20 ms until it holds or `ms` pass; returns its last answer. */
export async function eventually(check: () => boolean, ms = 2000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}
