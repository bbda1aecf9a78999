// How an engine process is started under its caps: the exec helper (exec-helper/quire-exec.c) or,
// where it was not built, util-linux's programs; and the heuristic that recognises a process that
// died because it hit its memory cap.
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PRLIMIT = '/usr/bin/prlimit';
/** util-linux setpriv: sets the parent-death signal, then execs the next program. */
export const SETPRIV = '/usr/bin/setpriv';
/** util-linux unshare: `--net` moves the next program into a new network namespace (root only). */
export const UNSHARE = '/usr/bin/unshare';
/**
 * Where scripts/build-helpers.sh puts the helper. This module is two folders below the
 * repository root both as src/process/limits.ts (tests) and as dist/process/limits.js.
 */
export const EXEC_HELPER = fileURLToPath(new URL('../../dist/bin/quire-exec', import.meta.url));

export interface ResourceLimits {
  /** Address-space cap (RLIMIT_AS) in bytes. */
  memoryBytes?: number;
  /**
   * CPU-time cap (RLIMIT_CPU) in seconds: the soft cap, with the hard one a second above it. At the
   * soft cap the kernel sends SIGXCPU, which ends the engine and reads as `timeout`
   * (`hitCpuLimit`); an engine that catches it is SIGKILLed at the hard cap.
   */
  cpuSeconds?: number;
  /**
   * Run in a fresh network namespace holding only a down loopback device: no socket can reach
   * any host, this one included. Needs CAP_SYS_ADMIN; callers check `canIsolateNetwork` first.
   */
  isolateNetwork?: boolean;
}

/** The hard CPU cap's distance above the soft one (the helper's CPU_GRACE_SECONDS, the same). */
const CPU_GRACE_SECONDS = 1;

/**
 * A native helper built into dist/bin/ (scripts/build-helpers.sh): its path when it is there and
 * executable, else null. Looked up once: it is built before the service starts, and a run must not
 * pay a stat.
 */
export function builtHelper(file: string): () => string | null {
  let found: string | null | undefined;
  return () => {
    if (found === undefined) {
      try {
        accessSync(file, constants.X_OK);
        found = file;
      } catch {
        found = null;
      }
    }
    return found;
  };
}

/** The exec helper when it is built, else null (util-linux's programs are used). */
export const execHelper = builtHelper(EXEC_HELPER);

/**
 * The caps as whole numbers, as every starter sets them: bytes rounded down, CPU seconds up (the
 * exec helper, prlimit and the qpdf forkserver read decimal integers only).
 */
export function wholeCaps(limits: ResourceLimits): { memoryBytes?: number; cpuSeconds?: number } {
  return {
    ...(limits.memoryBytes === undefined ? {} : { memoryBytes: Math.floor(limits.memoryBytes) }),
    ...(limits.cpuSeconds === undefined ? {} : { cpuSeconds: Math.ceil(limits.cpuSeconds) }),
  };
}

/**
 * Wraps a command so it runs under `limits`, and is SIGKILLed by the kernel when the process that
 * spawned it (the engine spawner) dies, even by SIGKILL: the engine leads its own process group, so
 * a kill of the service's group would miss it. Every wrapper sets these on itself and then execs the
 * next program in place, so the pid we spawn is the engine's pid and the limits are inherited by
 * every grandchild. `helper` is the exec helper (one exec: 1–2 ms sooner per run than the chain) or
 * null for util-linux's `setpriv`, `unshare` and `prlimit`, the fallback for hosts without a C
 * compiler; both take the same limits the same way and fail the same way (exit 127 and "failed to
 * execute" for a missing command, a non-zero exit before the command when a cap or the namespace
 * cannot be set).
 */
export function withLimits(
  command: string,
  args: readonly string[],
  limits: ResourceLimits,
  helper: string | null = execHelper(),
): [string, string[]] {
  const flags: string[] = [];
  const { memoryBytes, cpuSeconds: cpu } = wholeCaps(limits);
  if (memoryBytes !== undefined) flags.push(`--as=${memoryBytes}`);
  if (helper !== null) {
    if (cpu !== undefined) flags.push(`--cpu=${cpu}`); // the helper adds the hard cap's second
    return [helper, [...flags, ...(limits.isolateNetwork ? ['--net'] : []), '--', command, ...args]];
  }
  if (cpu !== undefined) flags.push(`--cpu=${cpu}:${cpu + CPU_GRACE_SECONDS}`);
  const limited = flags.length === 0 ? [command, ...args] : [PRLIMIT, ...flags, '--', command, ...args];
  // Without --fork unshare execs in place, so the pid (and process group) stays the engine's.
  const isolated = limits.isolateNetwork ? [UNSHARE, '--net', '--', ...limited] : limited;
  return [SETPRIV, ['--pdeathsig', 'KILL', '--', ...isolated]];
}

/**
 * Allocation-failure messages of the engines we run and of the runtimes they are built on:
 * C++ `std::bad_alloc` (qpdf, poppler, tesseract), glibc/C `Cannot allocate memory` (ENOMEM from
 * mmap/fork), Ghostscript's `VMerror` and `Out of memory`, Python's `MemoryError` (ocrmypdf),
 * `memory allocation failed` (libjpeg/libpng/leptonica) and Java's `OutOfMemoryError` (LibreOffice
 * helpers).
 */
const OOM_STDERR =
  /bad_alloc|cannot allocate memory|out of memory|vmerror|memoryerror|memory allocation fail|outofmemoryerror|failed to allocate/i;

/**
 * Whether a finished process most likely died of its RLIMIT_AS cap. Under an address-space limit
 * a failed allocation shows up either as one of the messages above (the program noticed) or as a
 * crash: SIGABRT (uncaught bad_alloc → std::terminate) or SIGSEGV (an unchecked NULL from malloc).
 * A crash only counts when a cap was set, so a genuine engine bug without a cap stays
 * `engine_failed`.
 */
export function looksOutOfMemory(
  result: { exitCode: number | null; signal: NodeJS.Signals | null; stderrTail: string },
  memoryCapped: boolean,
): boolean {
  if (!memoryCapped) return false;
  if (OOM_STDERR.test(result.stderrTail)) return true;
  return result.signal === 'SIGABRT' || result.signal === 'SIGSEGV';
}

/** SIGXCPU means the soft CPU-seconds cap was reached: a timeout, not a crash. */
export function hitCpuLimit(result: { signal: NodeJS.Signals | null }): boolean {
  return result.signal === 'SIGXCPU';
}
