// The engine spawner's program: a small long-lived child of the service that forks engines for it.
// A fork copies the page tables of the process that forks and blocks it until exec, so forking from
// this process of a few tens of MiB instead of the service's heap makes each engine start cheap, and
// keeps the service's event loop running meanwhile. Started by client.ts; dies with the service.
import { type ChildProcess, spawn } from 'node:child_process';
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

/** What a relay slows down while the IPC queue is long: the engine's pipe. */
interface Pausable {
  pause(): unknown;
  resume(): unknown;
}

/** One stream's chunks on their way to the service, sent together. */
class Relay {
  private chunks: Buffer[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: Pausable,
    private readonly event: { type: 'stdout' | 'stderr'; id: number },
  ) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= RELAY_MAX_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), RELAY_INTERVAL_MS);
  }

  /**
   * Sends what is gathered. While the IPC queue is long the source pauses until this message is
   * written, so an engine flooding its output is slowed to the service's pace, not kept here.
   */
  flush(): void {
    const chunk = this.take();
    if (chunk && !send({ ...this.event, chunk }, () => this.source.resume())) this.source.pause();
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

/** What the service hears of one run, however it was started: its output kept and relayed, one end. */
class Report {
  private readonly stdout: HeadBuffer;
  private readonly stderr: TailBuffer;
  private relays: { stdout?: Relay; stderr?: Relay } = {};
  private reported = false;
  private pid: number | undefined;

  constructor(private readonly request: SpawnRequest) {
    this.stdout = new HeadBuffer(request.stdoutKeepBytes);
    this.stderr = new TailBuffer(request.stderrTailBytes);
  }

  spawned(pid: number): void {
    this.pid = pid;
    liveGroups.add(pid);
    send({ type: 'spawned', id: this.request.id, pid });
  }

  /** Output of `stream` will arrive through `source`, paused when the service falls behind. */
  follow(stream: 'stdout' | 'stderr', source: Pausable): void {
    const wanted = stream === 'stdout' ? this.request.relayStdout : this.request.relayStderr;
    if (wanted) this.relays[stream] = new Relay(source, { type: stream, id: this.request.id });
  }

  output(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (stream === 'stderr') this.stderr.push(chunk);
    else if (this.request.stdoutKeepBytes > 0) this.stdout.push(chunk);
    this.relays[stream]?.push(chunk);
  }

  failed(code: string | undefined, message: string): void {
    this.forget();
    if (this.reported) return;
    this.reported = true;
    send({ type: 'failed', id: this.request.id, code, message });
  }

  closed(exitCode: number | null, signal: NodeJS.Signals | null): void {
    this.forget();
    if (this.reported) return;
    this.reported = true;
    const lastStdout = this.relays.stdout?.take();
    const lastStderr = this.relays.stderr?.take();
    const closed: ClosedEvent = {
      type: 'closed',
      id: this.request.id,
      exitCode,
      signal,
      stdout: this.stdout.toBuffer(),
      stdoutTruncated: this.stdout.truncated,
      stderrTail: this.stderr.toBuffer(),
      ...(lastStdout ? { lastStdout } : {}),
      ...(lastStderr ? { lastStderr } : {}),
    };
    send(closed);
  }

  private forget(): void {
    if (this.pid !== undefined) liveGroups.delete(this.pid);
  }
}

/** A run through a forkserver never comes here: the service asks the forkserver itself (forked-here.ts). */
function start(request: SpawnRequest): void {
  startSpawned(request);
}

function startSpawned(request: SpawnRequest): void {
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
  const report = new Report(request);
  if (pid !== undefined) report.spawned(pid);
  for (const stream of ['stdout', 'stderr'] as const) {
    const readable = child[stream];
    if (!readable) continue;
    report.follow(stream, readable);
    readable.on('data', (chunk: Buffer) => report.output(stream, chunk));
  }
  if (child.stdin && request.stdin !== undefined) {
    child.stdin.on('error', () => {}); // EPIPE when the engine exits without reading: not a failure.
    child.stdin.end(request.stdin);
  }
  // The leader is gone; anything left in its group is a stray that could hold the pipes open.
  child.once('exit', () => killGroup(pid));
  child.once('error', (err: NodeJS.ErrnoException) => {
    killGroup(pid);
    report.failed(err.code, err.message);
  });
  child.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) =>
    report.closed(exitCode, signal),
  );
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
