// Long-lived LibreOffice instances (office-bridge.py + soffice), each with its own user profile,
// pooled by instance-pool.ts: one conversion at a time per instance, killed and replaced on a hang.
// Instances start on first use, so a server that never converts never pays for them.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { AbortedError, run } from '../../process/runner.js';
import { makeWorkDir } from '../../process/work-dir.js';
import { createInstancePool, type PooledInstance } from '../instance-pool.js';

/** Resolves from src/engines/libreoffice and dist/engines/libreoffice alike: three levels below the root. */
const BRIDGE = fileURLToPath(new URL('../../../src/engines/libreoffice/office-bridge.py', import.meta.url));
/** Debian's python3-uno lives in the system interpreter, not in any pyenv or venv on PATH. */
const PYTHON = '/usr/bin/python3';
/** A cold start (new profile) on a busy 2-core host measured 3–8 s; past this it is broken. */
const START_TIMEOUT_MS = 90_000;
/** setTimeout's ceiling (~24.8 days): an idle instance lives until recycled or shut down. */
const INSTANCE_LIFETIME_MS = 2_147_483_647;

/**
 * Macro security "very high" with macro execution disabled outright, written into each fresh
 * profile before LibreOffice first reads it (the load call also passes NEVER_EXECUTE).
 */
const PROFILE_SETTINGS = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
</oor:items>
`;

export interface OfficePoolOptions {
  size: number;
  recycleAfter: number;
  /** Parent of the instances' private directories (profile + socket). */
  workRoot: string;
  memoryBytes: number;
  isolateNetwork: boolean;
}

export interface OfficeRequest {
  input: string;
  output: string;
  landscape: boolean;
}

interface BridgeReply {
  ok: boolean;
  error?: string;
  detail?: string;
}

class OfficeInstance implements PooledInstance {
  dead = false;
  private constructor(
    private readonly dir: string,
    private readonly socket: string,
    private readonly stopper: AbortController,
    readonly exited: Promise<unknown>,
  ) {}

  static async start(opts: OfficePoolOptions): Promise<OfficeInstance> {
    await mkdir(opts.workRoot, { recursive: true, mode: 0o700 });
    const dir = await makeWorkDir(opts.workRoot);
    const profile = path.join(dir, 'profile');
    await mkdir(path.join(profile, 'user'), { recursive: true });
    await writeFile(path.join(profile, 'user', 'registrymodifications.xcu'), PROFILE_SETTINGS);
    const socket = path.join(dir, 'bridge.sock');
    let announce: (ready: boolean) => void = () => {};
    const ready = new Promise<boolean>((resolve) => {
      announce = resolve;
    });
    const holder: { instance?: OfficeInstance } = {};
    const stopper = new AbortController();
    const exited = run(PYTHON, [BRIDGE, profile, socket], {
      cwd: dir,
      timeoutMs: INSTANCE_LIFETIME_MS,
      signal: stopper.signal,
      limits: { memoryBytes: opts.memoryBytes },
      ...(opts.isolateNetwork ? { network: false } : {}),
      onStdoutLine: (line) => line === 'ready' && announce(true),
    }).then(
      (r) => r,
      (e: unknown) => e,
    );
    void exited.then(() => {
      announce(false);
      if (holder.instance) holder.instance.dead = true;
    });
    const instance = new OfficeInstance(dir, socket, stopper, exited);
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

  /** One request over the bridge socket; rejects on timeout or abort (the caller then kills us). */
  convert(request: OfficeRequest, timeoutMs: number, signal?: AbortSignal): Promise<BridgeReply> {
    return new Promise((resolve, reject) => {
      const conn = net.connect(this.socket);
      let buffer = '';
      const done = (fn: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        conn.destroy();
        fn();
      };
      const timer = setTimeout(
        () =>
          done(() =>
            reject(
              new QuireError(
                'timeout',
                `LibreOffice did not finish within ${Math.round(timeoutMs / 1000)} s`,
                {
                  extras: { timeout_ms: timeoutMs },
                },
              ),
            ),
          ),
        timeoutMs,
      );
      const onAbort = () => done(() => reject(new AbortedError(signal?.reason)));
      signal?.addEventListener('abort', onAbort, { once: true });
      conn.setEncoding('utf8');
      conn.on('data', (chunk: string) => {
        buffer += chunk;
        const end = buffer.indexOf('\n');
        if (end >= 0) done(() => resolve(JSON.parse(buffer.slice(0, end)) as BridgeReply));
      });
      conn.on('error', () => done(() => reject(new QuireError('engine_failed', 'LibreOffice stopped'))));
      conn.on('close', () => done(() => reject(new QuireError('engine_failed', 'LibreOffice stopped'))));
      conn.write(`${JSON.stringify(request)}\n`);
    });
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
