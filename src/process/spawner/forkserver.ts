// The service's side of a forkserver (src/engines/qpdf/forkserver/qpdf-forkserver.c): one
// long-lived process per binary, started on first use (forked-here.ts), that forks a child per run
// instead of the engine spawner starting the program anew. A run asks over its own connection to the
// forkserver's socket and hears back the child's pid, its output and its exit as frames. When the
// forkserver cannot be started or has gone, the run is started the ordinary way, by the spawner
// (main.ts); the service sees no difference.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ForkServerCall } from './protocol.js';

/** After this many failed starts the forkserver is given up for the service's lifetime. */
const MAX_STARTS_FAILED = 3;
/** The forkserver's glibc malloc thread-cache depth (see its start). */
const TCACHE_TUNABLE = 'glibc.malloc.tcache_count=1000';
/** A forkserver not ready this long after its start is killed: its runs start the ordinary way. */
const READY_TIMEOUT_MS = 5_000;
const FRAME_HEAD_BYTES = 5;
/** A socket directory's name: its owner's pid, so one left by a process that is gone is known. */
const DIR_PREFIX = 'quire-forkserver-';
const DIR_OWNER = /^quire-forkserver-(\d+)-/;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the socket directories of owners that are gone: a SIGKILL (an OOM kill, a supervisor's
 * last resort, the chaos tests) skips `close()`, and each would leave its empty directory behind.
 */
function sweepOrphans(): void {
  let names: string[];
  try {
    names = readdirSync(os.tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const owner = DIR_OWNER.exec(name);
    if (owner && !isAlive(Number(owner[1]))) {
      rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    }
  }
}

export interface ForkedRun {
  cwd: string;
  env: Record<string, string>;
  call: ForkServerCall;
}

/** What a run reports; `unavailable` means "nothing was started: start it the ordinary way". */
export interface ForkedHandlers {
  unavailable(): void;
  spawned(pid: number): void;
  output(stream: 'stdout' | 'stderr', chunk: Buffer): void;
  exited(exitCode: number | null, signal: NodeJS.Signals | null): void;
  failed(message: string): void;
}

const SIGNAL_NAMES = new Map(
  Object.entries(os.constants.signals).map(([name, number]) => [number, name as NodeJS.Signals]),
);

/**
 * The request the forkserver reads: its length, then NUL-terminated fields (see the C source).
 * Undefined when a field holds a NUL itself, which would split it into two: such a run is started
 * the ordinary way, where spawn refuses it as it always has.
 */
function encode(run: ForkedRun): Buffer | undefined {
  const env = Object.entries(run.env).map(([name, value]) => `${name}=${value}`);
  const { memoryBytes, cpuSeconds, argv } = run.call;
  const fields = [run.cwd, memoryBytes ?? '', cpuSeconds ?? '', env.length, ...env, ...argv].map(String);
  if (fields.some((field) => field.includes('\0'))) return undefined;
  const body = Buffer.from(`${fields.join('\0')}\0`);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

export class ForkServer {
  /** The socket of the running forkserver; undefined when none is running or it cannot run. */
  private ready: Promise<string | undefined> | undefined;
  private startsFailed = 0;
  private swept = false;
  private running: { child: ChildProcess; dir: string } | undefined;

  constructor(private readonly binary: string) {}

  /** Stops the forkserver (its runs die with it: their parent-death signal) and removes its socket. */
  close(): void {
    if (!this.running) return;
    this.running.child.kill('SIGKILL');
    rmSync(this.running.dir, { recursive: true, force: true });
    this.running = undefined;
  }

  run(request: ForkedRun, handlers: ForkedHandlers): void {
    const encoded = encode(request);
    if (!encoded) {
      handlers.unavailable();
      return;
    }
    void this.socket().then((socket) => {
      if (socket === undefined) handlers.unavailable();
      else this.ask(socket, encoded, handlers);
    });
  }

  private ask(socket: string, request: Buffer, handlers: ForkedHandlers): void {
    const connection = net.createConnection(socket);
    let pid: number | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let failure: string | undefined;
    let pending: Buffer = Buffer.alloc(0);
    const frame = (type: number, payload: Buffer) => {
      if (type === 0x70 /* p */) {
        pid = payload.readUInt32BE(0);
        handlers.spawned(pid);
      } else if (type === 0x6f /* o */) handlers.output('stdout', payload);
      else if (type === 0x65 /* e */) handlers.output('stderr', payload);
      else if (type === 0x78 /* x */) {
        // The child's own (its run returned) or the forkserver's after the reap: the first counts,
        // and the run is over at once; the connection is done with.
        if (exit) return;
        const code = payload.readInt32BE(0);
        const signal = payload.readInt32BE(4);
        exit = {
          code: code < 0 ? null : code,
          signal: signal < 0 ? null : (SIGNAL_NAMES.get(signal) ?? null),
        };
        handlers.exited(exit.code, exit.signal);
        connection.destroy();
      } else if (type === 0x66 /* f */) failure = `the forkserver could not fork: ${payload.toString()}`;
    };
    connection.on('connect', () => connection.end(request));
    connection.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let at = 0;
      while (pending.length - at >= FRAME_HEAD_BYTES) {
        const size = pending.readUInt32BE(at + 1);
        if (pending.length - at - FRAME_HEAD_BYTES < size) break;
        frame(pending[at]!, pending.subarray(at + FRAME_HEAD_BYTES, at + FRAME_HEAD_BYTES + size));
        at += FRAME_HEAD_BYTES + size;
      }
      pending = pending.subarray(at);
    });
    connection.on('error', (error: NodeJS.ErrnoException) => {
      // Refused or gone before the child existed: the forkserver died; the next run starts another.
      if (pid === undefined && exit === undefined) failure ??= `forkserver: ${error.code ?? error.message}`;
    });
    connection.on('close', () => {
      if (exit) return;
      if (pid === undefined && failure?.startsWith('forkserver:')) {
        this.ready = undefined;
        return handlers.unavailable();
      }
      handlers.failed(failure ?? 'the forkserver ended the run without its exit status');
    });
  }

  /** The socket of a running forkserver, started if need be; undefined when it cannot be run. */
  private socket(): Promise<string | undefined> {
    if (this.ready) return this.ready;
    if (this.startsFailed >= MAX_STARTS_FAILED) return Promise.resolve(undefined);
    if (!this.swept) {
      this.swept = true;
      sweepOrphans();
    }
    this.ready = new Promise((resolve) => {
      let dir: string;
      try {
        // mkdtemp makes the directory 0700: only this user reaches the socket inside it.
        dir = mkdtempSync(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
      } catch {
        this.startsFailed++;
        this.ready = undefined;
        return resolve(undefined);
      }
      const socket = path.join(dir, 'socket');
      // LD_BIND_NOW: every library's symbols are bound once, here, instead of lazily in each forked
      // run, which would bind afresh the ones it calls first (the parent never called them).
      // GLIBC_TUNABLES: each run's thread cache keeps up to 1,000 freed chunks per size instead of 7,
      // so qpdf's many small objects are reused without the free lists' consolidation (with
      // M_MXFAST 0 in run.c: a 10-file merge's qpdf 340 → 312 ms). Read once, at this start; a
      // run is one short process, so what the caches hold goes with it. An operator's own wins.
      const tunables = [TCACHE_TUNABLE, process.env.GLIBC_TUNABLES].filter(Boolean).join(':');
      const child = spawn(this.binary, [socket], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, LD_BIND_NOW: '1', GLIBC_TUNABLES: tunables },
      });
      this.running = { child, dir };
      const late = setTimeout(() => child.kill('SIGKILL'), READY_TIMEOUT_MS);
      let started = false;
      let ended = false;
      const gone = () => {
        if (ended) return;
        ended = true;
        clearTimeout(late);
        if (this.running?.child === child) this.running = undefined;
        rmSync(dir, { recursive: true, force: true });
        if (!started) this.startsFailed++;
        this.ready = undefined;
        resolve(undefined);
      };
      child.once('error', gone);
      child.once('exit', gone);
      child.stdout!.once('data', (line: Buffer) => {
        clearTimeout(late);
        started = line.toString().startsWith('ready');
        if (!started) child.kill('SIGKILL');
        resolve(started ? socket : undefined);
      });
      child.unref();
      (child.stdout as net.Socket).unref();
    });
    return this.ready;
  }
}
