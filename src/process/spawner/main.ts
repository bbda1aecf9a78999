// The engine spawner's program: a small long-lived child of the service that forks engines for it.
// A fork copies the page tables of the process that forks and blocks it until exec, so forking from
// this process of a few tens of MiB instead of the service's heap makes each engine start cheap, and
// keeps the service's event loop running meanwhile. Started by client.ts; dies with the service.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { killGroup } from '../process-group.js';
import { HeadBuffer, TailBuffer } from '../stderr-tail.js';
import type { ClosedEvent, SpawnerEvent, SpawnerRequest, SpawnRequest } from './protocol.js';

/** Engine process groups still alive: killed when the service goes, however it goes. */
const liveGroups = new Set<number>();

function send(event: SpawnerEvent, onSent?: () => void): boolean {
  if (!process.connected) return false;
  return process.send!(event, undefined, undefined, onSent);
}

/**
 * Output for the service is gathered this long before it is sent: engines print progress in many
 * small writes (qpdf about a dozen for one page), and each message costs both processes a wake-up,
 * a (de)serialisation and a write. Progress is written at most once a second, so nothing is lost.
 */
const RELAY_INTERVAL_MS = 20;
/** Sent at once past this much, so a fast engine's output never piles up here. */
const RELAY_MAX_BYTES = 64 * 1024;

/** One stream's chunks on their way to the service, sent together. */
class Relay {
  private chunks: Buffer[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: Readable,
    private readonly event: { type: 'stdout' | 'stderr'; id: number },
  ) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= RELAY_MAX_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), RELAY_INTERVAL_MS);
  }

  /**
   * Sends what is gathered. While the IPC queue is long the stream pauses until this message is
   * written, so an engine flooding its output is slowed to the service's pace, not kept here.
   */
  flush(): void {
    const chunk = this.take();
    if (chunk && !send({ ...this.event, chunk }, () => this.stream.resume())) this.stream.pause();
  }

  /** What is gathered and not sent yet (the run's last output, carried by its close report). */
  take(): Buffer | undefined {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.size === 0) return undefined;
    const chunk = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [];
    this.size = 0;
    return chunk;
  }
}

/** Keeps what the exit report needs of a stream and relays it when the service follows it. */
function follow(
  stream: Readable | null,
  keep: (chunk: Buffer) => void,
  relay: { type: 'stdout' | 'stderr'; id: number } | undefined,
): Relay | undefined {
  if (!stream) return undefined;
  const relayed = relay ? new Relay(stream, relay) : undefined;
  stream.on('data', (chunk: Buffer) => {
    keep(chunk);
    relayed?.push(chunk);
  });
  return relayed;
}

function start(request: SpawnRequest): void {
  const { id } = request;
  let child: ChildProcess;
  try {
    child = spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      // detached = setsid(): the engine leads a new process group, killed as a unit.
      detached: true,
      // Output nobody reads goes to /dev/null: one pipe fewer to make, watch and drain.
      stdio: [
        request.stdin === undefined ? 'ignore' : 'pipe',
        request.stdoutKeepBytes > 0 || request.relayStdout ? 'pipe' : 'ignore',
        'pipe',
      ],
    });
  } catch (error) {
    const err = error as NodeJS.ErrnoException;
    send({ type: 'failed', id, code: err.code, message: err.message });
    return;
  }
  const pid = child.pid;
  if (pid !== undefined) {
    liveGroups.add(pid);
    send({ type: 'spawned', id, pid });
  }
  const stdout = new HeadBuffer(request.stdoutKeepBytes);
  const stderr = new TailBuffer(request.stderrTailBytes);
  const keepStdout = request.stdoutKeepBytes > 0 ? (c: Buffer) => stdout.push(c) : () => {};
  const relayOut = follow(child.stdout, keepStdout, request.relayStdout ? { type: 'stdout', id } : undefined);
  const relayErr = follow(
    child.stderr,
    (c) => stderr.push(c),
    request.relayStderr ? { type: 'stderr', id } : undefined,
  );
  if (child.stdin && request.stdin !== undefined) {
    child.stdin.on('error', () => {}); // EPIPE when the engine exits without reading: not a failure.
    child.stdin.end(request.stdin);
  }

  let reported = false;
  // The leader is gone; anything left in its group is a stray that could hold the pipes open.
  child.once('exit', () => killGroup(pid));
  child.once('error', (err: NodeJS.ErrnoException) => {
    if (pid !== undefined) liveGroups.delete(pid);
    killGroup(pid);
    if (reported) return;
    reported = true;
    send({ type: 'failed', id, code: err.code, message: err.message });
  });
  child.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) => {
    if (pid !== undefined) liveGroups.delete(pid);
    if (reported) return;
    reported = true;
    const lastStdout = relayOut?.take();
    const lastStderr = relayErr?.take();
    const closed: ClosedEvent = {
      type: 'closed',
      id,
      exitCode,
      signal,
      stdout: stdout.toBuffer(),
      stdoutTruncated: stdout.truncated,
      stderrTail: stderr.toBuffer(),
      ...(lastStdout ? { lastStdout } : {}),
      ...(lastStderr ? { lastStderr } : {}),
    };
    send(closed);
  });
}

/** The service is gone: so are its engines, grandchildren included (their groups are killed whole). */
function shutDown(): void {
  for (const pid of liveGroups) killGroup(pid);
  process.exit(0);
}

/** The service; once it is gone the kernel makes init (or a subreaper) the parent. */
const service = process.ppid;

process.on('message', (request: SpawnerRequest) => {
  if (request.type === 'spawn') start(request);
});
// The service's end of the channel closes when it exits, however it exits (SIGKILL too).
process.on('disconnect', shutDown);
// SIGTERM is also this process's parent-death signal (client.ts), the backstop for the channel.
// Otherwise a terminal's Ctrl-C or a supervisor's SIGTERM reached the whole process group: the
// service then stops its runs itself (handing jobs back), and needs this process until it exits.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (process.ppid !== service) shutDown();
  });
}
if (!process.connected) shutDown();
