// The one subprocess runner every engine uses: argv only (no shell), its own process group killed
// as a whole, wall/CPU/memory limits, bounded output capture and line callbacks for progress.
import { type ChildProcess, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { QuireError } from '../errors/quire-error.js';
import { hitCpuLimit, looksOutOfMemory, type ResourceLimits, withLimits } from './limits.js';
import { createLineSplitter, HeadBuffer, TailBuffer } from './stderr-tail.js';

/** Enough for the last few dozen engine messages, which is all an error mapper ever needs. */
const STDERR_TAIL_BYTES = 16 * 1024;
const DEFAULT_STDOUT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Thrown when the caller's AbortSignal fires (job canceled, lease lost). Deliberately not a
 * QuireError: a cancel is not a job failure and must not be reported as one.
 */
export class AbortedError extends Error {
  override name = 'AbortedError';
  constructor(reason?: unknown) {
    super('the engine run was aborted', reason === undefined ? undefined : { cause: reason });
  }
}

export function isAbortedError(value: unknown): value is AbortedError {
  return value instanceof AbortedError;
}

export interface RunOptions {
  /** The job's private work directory: cwd, HOME and TMPDIR of the child. */
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  limits?: ResourceLimits;
  /** Extra variables on top of the minimal environment (never secrets: /proc/<pid>/environ). */
  env?: Record<string, string>;
  /** Written to the child's stdin, then closed; the way to hand over a secret without a file. */
  stdin?: string | Buffer;
  /** Keep stdout (up to `stdoutMaxBytes`) in the result; otherwise it is only split into lines. */
  captureStdout?: boolean;
  stdoutMaxBytes?: number;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
  /** Called once when the process is gone, however it ended (for engine-duration metrics). */
  onFinished?: (durationMs: number) => void;
  /**
   * `false` runs the child in a new, empty network namespace (see limits.ts). Strict: if the
   * namespace cannot be made, the run fails; callers that may fall back check network-isolation.ts.
   */
  network?: boolean;
}

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The last ~16 KiB of stderr: for error mapping only, never to be logged or returned raw. */
  stderrTail: string;
  stdout: string;
  stdoutTruncated: boolean;
  durationMs: number;
  /** Set when the process most likely died of a resource cap (see limits.ts). */
  limitHit?: 'memory' | 'cpu';
}

/** Process groups still alive; killed when the service process exits so no engine outlives it. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pgid of liveGroups) killGroup(pgid);
  });
}

function minimalEnv(cwd: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    HOME: cwd,
    TMPDIR: cwd,
    ...extra,
  };
}

/**
 * Runs `command args` and resolves with its exit status whatever the exit code. Rejects with
 * QuireError `timeout` (wall clock or CPU cap), AbortedError (signal), or `engine_unavailable`
 * (binary missing). Every path kills the whole process group, grandchildren included.
 */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  if (options.signal?.aborted) return Promise.reject(new AbortedError(options.signal.reason));
  const limits = options.limits ?? {};
  const [file, argv] = withLimits(command, args, {
    ...limits,
    ...(options.network === false ? { isolateNetwork: true } : {}),
  });
  const started = performance.now();
  const child = spawn(file, argv, {
    cwd: options.cwd,
    env: minimalEnv(options.cwd, options.env),
    // detached = setsid(): the child leads a new process group we can kill as a unit.
    detached: true,
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) {
    installExitHook();
    liveGroups.add(child.pid);
  }
  return supervise(child, command, options, started, limits.memoryBytes !== undefined);
}

function supervise(
  child: ChildProcess,
  command: string,
  options: RunOptions,
  started: number,
  memoryCapped: boolean,
): Promise<RunResult> {
  const stderr = new TailBuffer(STDERR_TAIL_BYTES);
  const stdout = new HeadBuffer(options.stdoutMaxBytes ?? DEFAULT_STDOUT_MAX_BYTES);
  const errLines = createLineSplitter((line) => options.onStderrLine?.(line));
  const outLines = createLineSplitter((line) => options.onStdoutLine?.(line));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    if (options.onStderrLine) errLines.push(chunk);
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    if (options.captureStdout) stdout.push(chunk);
    if (options.onStdoutLine) outLines.push(chunk);
  });
  if (child.stdin && options.stdin !== undefined) {
    child.stdin.on('error', () => {}); // EPIPE when the child exits without reading: not our failure.
    child.stdin.end(options.stdin);
  }

  return new Promise((resolve, reject) => {
    let stopReason: 'timeout' | 'abort' | undefined;
    const stop = (why: 'timeout' | 'abort') => {
      stopReason ??= why;
      killGroup(child.pid);
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = () => stop('abort');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      options.onFinished?.(performance.now() - started);
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (child.pid !== undefined) liveGroups.delete(child.pid);
    };

    // The leader is gone; anything left in its group is a stray that could hold our pipes open.
    child.once('exit', () => killGroup(child.pid));
    child.once('error', (err: NodeJS.ErrnoException) => {
      finish();
      killGroup(child.pid);
      if (err.code === 'ENOENT') reject(new QuireError('engine_unavailable', `${command} is not installed`));
      else reject(err);
    });
    child.once('close', (exitCode, signal) => {
      finish();
      errLines.end();
      outLines.end();
      if (stopReason === 'abort') return reject(new AbortedError(options.signal?.reason));
      if (stopReason === 'timeout') return reject(timeoutError(options.timeoutMs));
      const result: RunResult = {
        exitCode,
        signal,
        stderrTail: stderr.toString(),
        stdout: stdout.toString(),
        stdoutTruncated: stdout.truncated,
        durationMs: Math.round(performance.now() - started),
      };
      // prlimit exits 127 when it cannot exec the command (util-linux errexec convention).
      if (exitCode === 127 && /failed to execute/.test(result.stderrTail)) {
        return reject(new QuireError('engine_unavailable', `${command} is not installed`));
      }
      if (hitCpuLimit(result)) result.limitHit = 'cpu';
      else if (looksOutOfMemory(result, memoryCapped)) result.limitHit = 'memory';
      resolve(result);
    });
  });
}

function timeoutError(timeoutMs: number): QuireError {
  return new QuireError('timeout', `The engine did not finish within ${Math.round(timeoutMs / 1000)} s`, {
    extras: { timeout_ms: timeoutMs },
  });
}

/** Throws the typed error for a run that died of a resource cap; engine adapters call it first. */
export function throwIfLimitHit(result: RunResult): void {
  if (result.limitHit === 'cpu') throw new QuireError('timeout', 'The engine used up its CPU-time limit');
  if (result.limitHit === 'memory') throw new QuireError('engine_memory_exceeded');
}
