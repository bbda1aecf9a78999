// Long-lived LibreOffice instances (office-bridge.py + soffice), each in its own bubblewrap sandbox
// with its own user profile, pooled by instance-pool.ts: one conversion at a time per instance,
// killed and replaced on a hang. Instances start on first use, so a server that never converts
// never pays for them. A job's file crosses into the sandbox through the instance's exchange
// folder, which holds that one job's input and output and is emptied after it.
import { chmod, copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../../errors/quire-error.js';
import { LineBuffer } from '../../process/line-buffer.js';
import { run } from '../../process/runner.js';
import { requireSandbox, sandboxArgv } from '../../process/sandbox.js';
import { createInstancePool, type PooledInstance } from '../instance-pool.js';
import { askOverSocket } from '../socket-request.js';
import { emptyDir, leftFonts, moveFile, prepareInstanceDir } from './office-profile.js';

/** Debian's python3-uno lives in the system interpreter, not in any pyenv or venv on PATH. */
const PYTHON = '/usr/bin/python3';
/** A cold start (new profile) on a busy 2-core host measured 3–8 s; past this it is broken. */
const START_TIMEOUT_MS = 90_000;
/** setTimeout's ceiling (~24.8 days): an idle instance lives until recycled or shut down. */
const INSTANCE_LIFETIME_MS = 2_147_483_647;

/** Paths inside the sandbox; the host side of each is a folder of the instance's directory. */
const INSIDE = {
  bridge: '/sandbox/office-bridge.py',
  profile: '/sandbox/profile',
  control: '/sandbox/control',
  exchange: '/sandbox/exchange',
} as const;

/** The input keeps its extension (the bridge picks text/CSV filters by it) but never its name. */
const SAFE_EXTENSION = /^\.[a-z0-9]{1,8}$/i;

export interface OfficePoolOptions {
  size: number;
  recycleAfter: number;
  /** Parent of the instances' private directories (profile, control socket, exchange). */
  workRoot: string;
  memoryBytes: number;
}

export interface OfficeRequest {
  input: string;
  output: string;
  landscape: boolean;
  /** The password of an encrypted document; it reaches the bridge over its 0600 socket only. */
  password?: string;
  /** Tagged PDF, or tagged PDF through LibreOffice's PDF/UA export (office-bridge.py). */
  accessibility?: Accessibility;
}

export type Accessibility = 'none' | 'tagged' | 'pdf-ua-1';

interface BridgeReply {
  ok: boolean;
  error?: string;
  detail?: string;
}

class OfficeInstance implements PooledInstance {
  dead = false;
  tainted = false;
  private constructor(
    private readonly dir: string,
    private readonly profile: string,
    private readonly socket: string,
    private readonly exchange: string,
    private readonly stopper: AbortController,
    readonly exited: Promise<unknown>,
  ) {}

  static async start(opts: OfficePoolOptions): Promise<OfficeInstance> {
    const identity = await requireSandbox('LibreOffice');
    const dirs = await prepareInstanceDir(opts.workRoot, identity);
    const [command, args] = sandboxArgv(
      {
        identity,
        mounts: [
          { host: dirs.bridge, at: INSIDE.bridge },
          { host: dirs.profile, at: INSIDE.profile, writable: true },
          { host: dirs.control, at: INSIDE.control, writable: true },
          { host: dirs.exchange, at: INSIDE.exchange, writable: true },
        ],
        passwd: dirs.passwd,
        home: INSIDE.profile,
      },
      PYTHON,
      [INSIDE.bridge, INSIDE.profile, `${INSIDE.control}/bridge.sock`],
    );
    let announce: (ready: boolean) => void = () => {};
    const ready = new Promise<boolean>((resolve) => {
      announce = resolve;
    });
    // The bridge prints `ready` once it serves; the runner leaves its lines here to be waited on.
    const stdout = new LineBuffer();
    void stdout.until('ready').then(announce);
    const holder: { instance?: OfficeInstance } = {};
    const stopper = new AbortController();
    // bwrap's own empty network namespace replaces the runner's `network: false`.
    const exited = run(command, args, {
      cwd: dirs.dir,
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
    const socket = path.join(dirs.control, 'bridge.sock');
    const instance = new OfficeInstance(dirs.dir, dirs.profile, socket, dirs.exchange, stopper, exited);
    holder.instance = instance;
    const timer = setTimeout(() => announce(false), START_TIMEOUT_MS);
    const ok = await ready;
    clearTimeout(timer);
    if (!ok) {
      await instance.stop();
      throw new QuireError('engine_failed', 'LibreOffice did not start');
    }
    return instance;
  }

  /**
   * Converts one job's file: copied into the exchange folder under a fixed name, converted there,
   * the PDF moved out, and the folder emptied whatever happened, so the next job finds it empty.
   * A document that brought fonts taints the instance (office-profile.ts): the pool retires it.
   */
  async convert(request: OfficeRequest, timeoutMs: number, signal?: AbortSignal): Promise<BridgeReply> {
    const ext = path.extname(request.input).toLowerCase();
    const name = `input${SAFE_EXTENSION.test(ext) ? ext : ''}`;
    const input = path.join(this.exchange, name);
    try {
      await copyFile(request.input, input);
      await chmod(input, 0o644);
      const reply = await askOverSocket<BridgeReply>(
        this.socket,
        {
          input: `${INSIDE.exchange}/${name}`,
          output: `${INSIDE.exchange}/output.pdf`,
          landscape: request.landscape,
          accessibility: request.accessibility ?? 'none',
          ...(request.password === undefined ? {} : { password: request.password }),
        },
        { engine: 'LibreOffice', timeoutMs, signal },
      );
      if (reply.ok) await moveFile(path.join(this.exchange, 'output.pdf'), request.output);
      return reply;
    } finally {
      await emptyDir(this.exchange);
      this.tainted ||= await leftFonts(this.profile);
    }
  }

  /** Kills the whole instance (bridge + soffice, one process group) and removes its profile. */
  async stop(): Promise<void> {
    this.dead = true;
    this.stopper.abort(new Error('office instance stopped'));
    await this.exited;
    await rm(this.dir, { recursive: true, force: true });
  }
}

export function createOfficePool(opts: OfficePoolOptions) {
  const pool = createInstancePool({
    name: 'LibreOffice',
    size: opts.size,
    recycleAfter: opts.recycleAfter,
    start: () => OfficeInstance.start(opts),
  });
  return {
    /**
     * Converts one document. A timeout or cancel kills the instance (a busy soffice cannot be
     * interrupted), so the next conversion gets a fresh one.
     */
    convert(request: OfficeRequest, timeoutMs: number, signal?: AbortSignal): Promise<BridgeReply> {
      return pool.use((instance) => instance.convert(request, timeoutMs, signal));
    },
    close: () => pool.close(),
  };
}

export type OfficePool = ReturnType<typeof createOfficePool>;
