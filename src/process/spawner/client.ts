// The service's side of the engine spawner (main.ts): starts it on the first engine run, hands it
// each run and routes its reports back. A spawner that dies fails the runs it held with a clear
// error, and the next run starts a new one.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { SETPRIV } from '../limits.js';
import { startForkedHere } from './forked-here.js';
import type { EngineHandlers, EngineStart, SpawnerEvent, SpawnRequest } from './protocol.js';

export type { EngineHandlers, EngineStart } from './protocol.js';

/**
 * The spawner's program beside this module once built. Tests run src/ through vitest, which Node
 * cannot execute in a child, so from source the built copy is used (test/support/global-setup.ts
 * builds dist/ first).
 */
function spawnerScript(): string {
  const here = fileURLToPath(import.meta.url);
  const dir = path.dirname(here);
  if (here.endsWith('.js')) return path.join(dir, 'main.js');
  return path.resolve(dir, '../../../dist/process/spawner/main.js');
}

let nextId = 1;

class Spawner {
  readonly child: ChildProcess;
  private readonly runs = new Map<number, EngineHandlers>();
  private gone = false;

  constructor() {
    // The spawner goes when the service goes, even by SIGKILL: its channel closes, and as a backstop
    // the kernel sends it SIGTERM (setpriv). Either way it first kills its engines' groups whole; a
    // SIGKILL here would leave their grandchildren behind (only the leaders have --pdeathsig KILL).
    this.child = spawn(SETPRIV, ['--pdeathsig', 'TERM', '--', process.execPath, spawnerScript()], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    this.child.on('message', (event: SpawnerEvent) => this.route(event));
    // ENOENT: setpriv is missing, and so, for the runner, is every engine (it names the engine).
    this.child.once('error', (err: NodeJS.ErrnoException) =>
      this.lost(err.code === 'ENOENT' ? err : new QuireError('internal_error', 'The engine spawner failed')),
    );
    // 'close', not 'exit': it comes after the last message on the channel has been delivered.
    this.child.once('close', (code: number | null, signal: NodeJS.Signals | null) =>
      this.lost(
        new QuireError(
          'internal_error',
          `The engine spawner exited (${signal ?? `code ${code}`}) during the run`,
        ),
      ),
    );
    this.hold(false);
  }

  get usable(): boolean {
    return !this.gone && this.child.connected;
  }

  start(request: EngineStart, handlers: EngineHandlers): void {
    const id = nextId++;
    this.runs.set(id, handlers);
    if (this.runs.size === 1) this.hold(true);
    const message: SpawnRequest = { type: 'spawn', id, ...request };
    this.child.send(message);
  }

  private route(event: SpawnerEvent): void {
    const run = this.runs.get(event.id);
    if (!run) return;
    switch (event.type) {
      case 'spawned':
        run.spawned(event.pid);
        break;
      case 'stdout':
        run.stdout(event.chunk);
        break;
      case 'stderr':
        run.stderr(event.chunk);
        break;
      case 'failed':
        this.end(event.id);
        run.failed(Object.assign(new Error(event.message), { code: event.code }));
        break;
      case 'closed':
        this.end(event.id);
        if (event.lastStdout) run.stdout(event.lastStdout);
        if (event.lastStderr) run.stderr(event.lastStderr);
        run.closed(event);
        break;
    }
  }

  private end(id: number): void {
    this.runs.delete(id);
    if (this.runs.size === 0) this.hold(false);
  }

  /**
   * The spawner keeps the service's event loop alive only while runs are in flight, as the engines'
   * own pipes did before it: an idle spawner never stops a process from exiting.
   */
  private hold(keep: boolean): void {
    if (this.gone) return;
    if (keep) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }

  private lost(error: NodeJS.ErrnoException): void {
    if (this.gone) return;
    this.gone = true;
    if (current === this) current = undefined;
    const runs = [...this.runs.values()];
    this.runs.clear();
    for (const run of runs) run.failed(error);
  }
}

let current: Spawner | undefined;

/**
 * Hands one engine start to the spawner, starting one first if there is none (or it is dying); a
 * run through a forkserver is asked for here (forked-here.ts), and goes to the spawner the ordinary
 * way only when the forkserver cannot take it.
 */
export function startEngine(request: EngineStart, handlers: EngineHandlers): void {
  const { forkServer, ...ordinary } = request;
  if (forkServer) startForkedHere({ ...request, forkServer }, handlers, () => viaSpawner(ordinary, handlers));
  else viaSpawner(request, handlers);
}

function viaSpawner(request: EngineStart, handlers: EngineHandlers): void {
  if (!current?.usable) current = new Spawner();
  current.start(request, handlers);
}

/** The spawner's pid, if one is running: for tests and benchmarks that watch or kill it. */
export function spawnerPid(): number | undefined {
  return current?.usable ? current.child.pid : undefined;
}
