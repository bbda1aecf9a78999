// The one subprocess runner every engine uses: argv only (no shell), its own process group killed
// as a whole, wall/CPU/memory limits, bounded output capture and line buffers the engine reads.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { QuireError } from '../errors/quire-error.js';
import { hitCpuLimit, looksOutOfMemory, type ResourceLimits, wholeCaps, withLimits } from './limits.js';
import type { LineBuffer } from './line-buffer.js';
import { killGroup } from './process-group.js';
import { type EngineHandlers, startEngine } from './spawner/client.js';
import { createLineSplitter } from './stderr-tail.js';

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
  /**
   * Where the run's lines go as they arrive (progress, a pooled engine's `ready`), for the engine to
   * read when it asks: state handed down, not a callback, so the runner never calls into an engine.
   */
  stdoutLines?: LineBuffer;
  stderrLines?: LineBuffer;
  /**
   * `false` runs the child in a new, empty network namespace (see limits.ts). Strict: if the
   * namespace cannot be made, the run fails; callers that may fall back check network-isolation.ts.
   */
  network?: boolean;
  /**
   * What starts the engine under its caps (limits.ts `withLimits`): by default the exec helper when
   * it is built, else util-linux's programs; `null` asks for those (tests hold both to one behaviour).
   */
  execHelper?: string | null;
  /**
   * A forkserver that runs this program (spawner/forkserver.ts): the run is forked from it instead of
   * started anew, under the same caps. Not for runs that isolate the network or take stdin; the
   * ordinary start stays the fallback whenever the forkserver cannot be used.
   */
  forkServer?: string;
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
 * QuireError `timeout` (wall clock or CPU cap), AbortedError (signal), `engine_unavailable`
 * (binary missing) or `internal_error` (the spawner died under the run). Every path kills the whole
 * process group, grandchildren included. The fork itself happens in the spawner (spawner/main.ts);
 * the engine is still this process's to kill: its pid is its process group id.
 */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  if (options.signal?.aborted) return Promise.reject(new AbortedError(options.signal.reason));
  const limits = options.limits ?? {};
  const [file, argv] = withLimits(
    command,
    args,
    { ...limits, ...(options.network === false ? { isolateNetwork: true } : {}) },
    options.execHelper,
  );
  const forked = options.forkServer !== undefined && options.network !== false && options.stdin === undefined;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const watch = supervise(command, options, started, limits.memoryBytes !== undefined, resolve, reject);
    startEngine(
      {
        file,
        args: argv,
        cwd: options.cwd,
        env: minimalEnv(options.cwd, options.env),
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        stdoutKeepBytes: options.captureStdout ? (options.stdoutMaxBytes ?? DEFAULT_STDOUT_MAX_BYTES) : 0,
        stderrTailBytes: STDERR_TAIL_BYTES,
        relayStdout: options.stdoutLines !== undefined,
        relayStderr: options.stderrLines !== undefined,
        ...(forked
          ? {
              forkServer: {
                binary: options.forkServer!,
                argv: [path.basename(command), ...args],
                ...wholeCaps(limits),
              },
            }
          : {}),
      },
      watch,
    );
  });
}

/** The run's side of the spawner's reports: time and abort kills, lines, and the final result. */
function supervise(
  command: string,
  options: RunOptions,
  started: number,
  memoryCapped: boolean,
  resolve: (result: RunResult) => void,
  reject: (error: unknown) => void,
): EngineHandlers {
  const errLines = createLineSplitter((line) => options.stderrLines?.push(line));
  const outLines = createLineSplitter((line) => options.stdoutLines?.push(line));
  let pid: number | undefined;
  let stopReason: 'timeout' | 'abort' | undefined;
  const stop = (why: 'timeout' | 'abort') => {
    stopReason ??= why;
    killGroup(pid); // Before the pid is known, `spawned` kills it on arrival.
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('abort');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const finish = () => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    if (pid !== undefined) liveGroups.delete(pid);
  };
  const stopped = (): boolean => {
    if (stopReason === 'abort') reject(new AbortedError(options.signal?.reason));
    else if (stopReason === 'timeout') reject(timeoutError(options.timeoutMs));
    return stopReason !== undefined;
  };

  return {
    spawned(enginePid) {
      pid = enginePid;
      installExitHook();
      liveGroups.add(enginePid);
      if (stopReason) killGroup(enginePid);
    },
    stdout: (chunk) => outLines.push(chunk),
    stderr: (chunk) => errLines.push(chunk),
    failed(err) {
      finish();
      options.stderrLines?.end();
      options.stdoutLines?.end();
      killGroup(pid);
      if (stopped()) return;
      if (err.code === 'ENOENT') reject(new QuireError('engine_unavailable', `${command} is not installed`));
      else reject(err);
    },
    closed(event) {
      finish();
      errLines.end();
      outLines.end();
      options.stderrLines?.end();
      options.stdoutLines?.end();
      if (stopped()) return;
      const result: RunResult = {
        exitCode: event.exitCode,
        signal: event.signal,
        stderrTail: event.stderrTail.toString('utf8'),
        stdout: event.stdout.toString('utf8'),
        stdoutTruncated: event.stdoutTruncated,
        durationMs: Math.round(performance.now() - started),
      };
      // The exec helper, setpriv and prlimit exit 127 when the command is not found (util-linux's
      // errexec convention, which the helper keeps).
      if (event.exitCode === 127 && /failed to execute/.test(result.stderrTail)) {
        return reject(new QuireError('engine_unavailable', `${command} is not installed`));
      }
      if (hitCpuLimit(result)) result.limitHit = 'cpu';
      else if (looksOutOfMemory(result, memoryCapped)) result.limitHit = 'memory';
      resolve(result);
    },
  };
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
