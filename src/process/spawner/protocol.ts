// The messages between the service and its engine spawner (main.ts), over the IPC channel of
// child_process with `serialization: 'advanced'`, so Buffers cross as bytes, not as JSON arrays.

/** Start one engine: argv only, in its own process group (see runner.ts for the guarantees). */
export interface SpawnRequest {
  type: 'spawn';
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to the engine's stdin, then closed; absent: stdin is /dev/null. */
  stdin?: string | Buffer;
  /** Keep the first this many bytes of stdout for the exit report; 0 keeps none. */
  stdoutKeepBytes: number;
  /** Keep the last this many bytes of stderr for the exit report. */
  stderrTailBytes: number;
  /** Send every chunk of the stream as it comes (the service splits it into lines for progress). */
  relayStdout: boolean;
  relayStderr: boolean;
}

export type SpawnerRequest = SpawnRequest;

/**
 * The same run through a forkserver (forkserver.ts): `argv` is the program's own command line
 * (argv[0] names it), and the caps are set by the forkserver's child, as the exec helper sets them.
 * `file` and `args` still start it the ordinary way when the forkserver cannot be used. Never sent
 * with `stdin` or for a network-isolated run (runner.ts decides).
 */
export interface ForkServerCall {
  binary: string;
  argv: string[];
  memoryBytes?: number;
  cpuSeconds?: number;
}

/** The engine exists: its pid is also its process group id, which the service may kill directly. */
export interface SpawnedEvent {
  type: 'spawned';
  id: number;
  pid: number;
}

export interface OutputEvent {
  type: 'stdout' | 'stderr';
  id: number;
  chunk: Buffer;
}

/** The engine could not be started at all (`code` is the errno name, e.g. ENOENT). */
export interface FailedEvent {
  type: 'failed';
  id: number;
  code: string | undefined;
  message: string;
}

/** The engine is gone and its output streams are closed: the last message of a run. */
export interface ClosedEvent {
  type: 'closed';
  id: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stdoutTruncated: boolean;
  stderrTail: Buffer;
  /**
   * Relayed output gathered and not yet sent when the engine closed, to be delivered before the
   * close: a short run's output then travels in this one message instead of one more before it.
   */
  lastStdout?: Buffer;
  lastStderr?: Buffer;
}

export type SpawnerEvent = SpawnedEvent | OutputEvent | FailedEvent | ClosedEvent;

/**
 * One engine start as the service hands it over (client.ts): a run that names a forkserver is asked
 * of it by the service itself (forked-here.ts), so the spawner never sees `forkServer`.
 */
export type EngineStart = Omit<SpawnRequest, 'type' | 'id'> & { forkServer?: ForkServerCall };

/** What the service hears of one run, however it was started. */
export interface EngineHandlers {
  spawned(pid: number): void;
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** The engine could not start (an errno `code` such as ENOENT), or the spawner died under it. */
  failed(error: NodeJS.ErrnoException): void;
  closed(event: ClosedEvent): void;
}
