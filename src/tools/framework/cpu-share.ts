// How many cores one job of this process may keep busy at a moment: the cores divided among the
// jobs running now. Work that can split (pdf-to-images' page ranges) asks before each piece.
import os from 'node:os';

let running = 0;

/**
 * Counts a job as running until the returned function is called (once; later calls do nothing).
 * The worker slots call it around each job, so every job, whatever its tool, takes its part.
 */
export function jobStarted(): () => void {
  running++;
  let left = false;
  return () => {
    if (left) return;
    left = true;
    running--;
  };
}

/**
 * Whole cores for one job now: all of them while it runs alone, one each once the jobs running
 * reach the core count. Never below one, so a job always progresses.
 */
export function cpuShare(cores = os.availableParallelism()): number {
  return Math.max(1, Math.floor(cores / Math.max(1, running)));
}
