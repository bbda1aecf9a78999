// Long-lived veraPDF JVMs (VeraWorker.java), each in its own bubblewrap sandbox, pooled by
// instance-pool.ts: one validation at a time per JVM, killed and replaced on a hang, retired after
// `recycleAfter` files. A JVM start with veraPDF's profiles costs seconds (docs/tools.md#validate
// has the figures); a warm JVM validates a small file in a fraction of one. Instances start on first
// use, so a server that never validates never pays for a JVM. A job's file crosses into the sandbox
// through the instance's exchange folder, which holds that one file and is emptied after it.
import { chmod, copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../../errors/quire-error.js';
import { LineBuffer } from '../../process/line-buffer.js';
import { run } from '../../process/runner.js';
import { makeSandboxDir, requireSandbox, sandboxArgv, writeSandboxPasswd } from '../../process/sandbox.js';
import { makeWorkDir } from '../../process/work-dir.js';
import { createInstancePool, type PooledInstance } from '../instance-pool.js';
import { askOverSocket } from '../socket-request.js';
import { javaRuntime, jvmArgs, VERAPDF_JARS, WORKER_CLASSES } from './java.js';
import type { WorkerReply } from './report.js';

/** Cold JVM start plus the warm-up validations measured 2–4 s on a busy 2-core host; past this it is broken. */
const START_TIMEOUT_MS = 60_000;
/** setTimeout's ceiling (~24.8 days): an idle instance lives until recycled or shut down. */
const INSTANCE_LIFETIME_MS = 2_147_483_647;

/** Paths inside the sandbox; the host side of each is given to bwrap as a bind. */
const INSIDE = {
  jars: '/sandbox/verapdf/lib',
  worker: '/sandbox/verapdf/worker',
  control: '/sandbox/control',
  exchange: '/sandbox/exchange',
} as const;

export interface ValidatorPoolOptions {
  size: number;
  recycleAfter: number;
  /** Parent of the instances' private directories (control socket, exchange). */
  workRoot: string;
  memoryBytes: number;
}

export interface ValidationRequest {
  input: string;
  /** `auto` or a veraPDF flavour id (`ua1`, `1b`, `2u`, `4f`, …). */
  profile: string;
}

class ValidatorInstance implements PooledInstance {
  dead = false;
  tainted = false;
  private constructor(
    private readonly dir: string,
    private readonly socket: string,
    private readonly exchange: string,
    private readonly stopper: AbortController,
    readonly exited: Promise<unknown>,
  ) {}

  static async start(opts: ValidatorPoolOptions): Promise<ValidatorInstance> {
    const identity = await requireSandbox('veraPDF');
    const java = await javaRuntime();
    await mkdir(opts.workRoot, { recursive: true, mode: 0o700 });
    const dir = makeWorkDir(opts.workRoot);
    const control = await makeSandboxDir(path.join(dir, 'control'), identity);
    const exchange = await makeSandboxDir(path.join(dir, 'exchange'), identity);
    const [command, args] = sandboxArgv(
      {
        identity,
        mounts: [
          { host: VERAPDF_JARS, at: INSIDE.jars },
          { host: WORKER_CLASSES, at: INSIDE.worker },
          // Debian's JDK reads its jvm.cfg and security settings through links into /etc.
          ...java.etc.map((p) => ({ host: p, at: p })),
          { host: control, at: INSIDE.control, writable: true },
          { host: exchange, at: INSIDE.exchange, writable: true },
        ],
        passwd: await writeSandboxPasswd(dir, identity),
        home: INSIDE.control,
      },
      java.binary,
      [
        ...jvmArgs(opts.memoryBytes),
        '-cp',
        `${INSIDE.worker}:${INSIDE.jars}/*`,
        'VeraWorker',
        `${INSIDE.control}/worker.sock`,
      ],
    );
    let announce: (ready: boolean) => void = () => {};
    const ready = new Promise<boolean>((resolve) => {
      announce = resolve;
    });
    // The bridge prints `ready` once it serves; the runner leaves its lines here to be waited on.
    const stdout = new LineBuffer();
    void stdout.until('ready').then(announce);
    const holder: { instance?: ValidatorInstance } = {};
    const stopper = new AbortController();
    // bwrap's own empty network namespace replaces the runner's `network: false`; the heap is capped
    // by -Xmx inside the address-space cap (java.ts).
    const exited = run(command, args, {
      cwd: dir,
      timeoutMs: INSTANCE_LIFETIME_MS,
      signal: stopper.signal,
      limits: { memoryBytes: opts.memoryBytes },
      stdoutLines: stdout,
    }).then(
      (r) => r,
      (e: unknown) => e,
    );
    void exited.then(() => {
      announce(false);
      if (holder.instance) holder.instance.dead = true;
    });
    const instance = new ValidatorInstance(dir, path.join(control, 'worker.sock'), exchange, stopper, exited);
    holder.instance = instance;
    const timer = setTimeout(() => announce(false), START_TIMEOUT_MS);
    const ok = await ready;
    clearTimeout(timer);
    if (!ok) {
      await instance.stop();
      throw new QuireError('engine_failed', 'veraPDF did not start');
    }
    return instance;
  }

  /** Validates one job's file, copied into the exchange folder under a fixed name and removed after. */
  async validate(request: ValidationRequest, timeoutMs: number, signal?: AbortSignal): Promise<WorkerReply> {
    const input = path.join(this.exchange, 'input.pdf');
    try {
      await copyFile(request.input, input);
      await chmod(input, 0o644);
      const reply = await askOverSocket<WorkerReply>(
        this.socket,
        { input: `${INSIDE.exchange}/input.pdf`, profile: request.profile },
        { engine: 'veraPDF', timeoutMs, signal },
      );
      // A JVM that ran out of heap may have lost any object half-built: it serves no other job.
      if (!reply.ok && reply.error === 'memory') this.tainted = true;
      return reply;
    } finally {
      await rm(input, { force: true });
    }
  }

  /** Kills the JVM (one process group with bwrap) and removes the instance's folders. */
  async stop(): Promise<void> {
    this.dead = true;
    this.stopper.abort(new Error('veraPDF instance stopped'));
    await this.exited;
    await rm(this.dir, { recursive: true, force: true });
  }
}

export function createValidatorPool(opts: ValidatorPoolOptions) {
  const pool = createInstancePool({
    name: 'veraPDF',
    size: opts.size,
    recycleAfter: opts.recycleAfter,
    start: () => ValidatorInstance.start(opts),
  });
  return {
    /** A timeout or cancel kills the JVM (a running validation cannot be interrupted from outside). */
    validate(request: ValidationRequest, timeoutMs: number, signal?: AbortSignal): Promise<WorkerReply> {
      return pool.use((instance) => instance.validate(request, timeoutMs, signal));
    },
    /**
     * Gets a JVM going now, for a job that validates only after other work (pdfa's conversion), so
     * its start-up overlaps that work; a warm idle JVM is merely touched. Counts as one use.
     */
    warm(): void {
      pool.use(async () => undefined).catch(() => undefined);
    },
    close: () => pool.close(),
  };
}
