// A bounded pool of long-lived engine instances (LibreOffice; Chromium shares one browser, see
// chromium/shared-browser.ts): at most `size` exist, each serves one job at a time, and an instance
// is replaced after `recycleAfter` uses or when a use breaks it. Memory that engines leak is
// returned to the system by recycling, not by trusting them.
import { QuireError } from '../errors/quire-error.js';

export interface PooledInstance {
  /** Set when the process died on its own; such an instance is never handed out again. */
  readonly dead: boolean;
  stop(): Promise<void>;
}

export interface InstancePoolOptions<T extends PooledInstance> {
  name: string;
  size: number;
  recycleAfter: number;
  start(): Promise<T>;
}

export interface InstancePool<T extends PooledInstance> {
  /**
   * Runs `use` on an instance. If `use` throws, the instance is stopped and replaced: after a
   * timeout or cancel the engine may still be busy with the abandoned work.
   */
  use<R>(use: (instance: T) => Promise<R>): Promise<R>;
  /** Stops idle instances now and busy ones as they are released; later uses fail. */
  close(): Promise<void>;
}

export function createInstancePool<T extends PooledInstance>(opts: InstancePoolOptions<T>): InstancePool<T> {
  const idle: { instance: T; uses: number }[] = [];
  const waiters: (() => void)[] = [];
  let free = opts.size;
  let closed = false;

  const closedError = () => new QuireError('engine_unavailable', `${opts.name} is shutting down`);

  const acquire = async (): Promise<{ instance: T; uses: number }> => {
    for (;;) {
      if (closed) throw closedError();
      const ready = idle.pop();
      if (ready && !ready.instance.dead) return ready;
      if (ready) {
        await ready.instance.stop();
        free += 1;
      }
      if (free > 0) {
        free -= 1;
        try {
          return { instance: await opts.start(), uses: 0 };
        } catch (err) {
          free += 1;
          waiters.shift()?.();
          throw err;
        }
      }
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };

  const release = async (slot: { instance: T; uses: number }, broken: boolean): Promise<void> => {
    slot.uses += 1;
    if (broken || closed || slot.instance.dead || slot.uses >= opts.recycleAfter) {
      await slot.instance.stop();
      free += 1;
    } else {
      idle.push(slot);
    }
    waiters.shift()?.();
  };

  return {
    async use(use) {
      const slot = await acquire();
      let broken = false;
      try {
        return await use(slot.instance);
      } catch (err) {
        broken = true;
        throw err;
      } finally {
        await release(slot, broken);
      }
    },

    async close() {
      closed = true;
      for (const wake of waiters.splice(0)) wake();
      await Promise.all(idle.splice(0).map((slot) => slot.instance.stop()));
    },
  };
}
