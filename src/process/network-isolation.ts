// Whether this host can run engines in their own network namespace (runner option `network: false`).
// Probed once at start: unprivileged containers and non-root users usually cannot, and an engine
// must then still run, without the namespace, with that fact logged and shown in /readyz.
import { tmpdir } from 'node:os';
import { run } from './runner.js';

/** `unshare --net` is a single syscall; anything slower than this is a broken host, not a slow one. */
const PROBE_TIMEOUT_MS = 5_000;

let probed: Promise<boolean> | undefined;

/** Runs `true` in a new network namespace through the real runner; cached for the process. */
export function probeNetworkIsolation(): Promise<boolean> {
  probed ??= run('true', [], { cwd: tmpdir(), timeoutMs: PROBE_TIMEOUT_MS, network: false }).then(
    (result) => result.exitCode === 0,
    () => false,
  );
  return probed;
}
