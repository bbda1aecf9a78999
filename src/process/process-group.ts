// Killing an engine's process group: each engine is started detached (setsid), so it leads a group
// of its own, and a kill of the group takes its grandchildren too. Used by the runner (timeouts,
// cancels, the service's exit) and by the spawner (the service gone).

/** SIGKILLs the group led by `pid`; nothing when there is none (not started yet, or gone). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}
