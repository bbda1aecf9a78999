// A bounded pool of long-lived engine instances (LibreOffice; Chromium shares one browser, see
// chromium/shared-browser.ts): at most `size` serve at once, each one job at a time. An instance is
// retired after `recycleAfter` uses, when a use breaks it, or when a use leaves state in it that the
// next job must not see (a document's fonts): every job starts from the same clean engine state, and
// memory that engines leak is returned to the system by recycling, not by trusting them.
//
// A retiring instance hands its slot to a replacement that is started ahead — at the start of its
// last planned use, or as soon as it turns out to be spent — so a queue never waits on a cold start
// that could have happened in the background (a 4-client DOCX round stalled ~4 s without this).
import { QuireError } from '../errors/quire-error.js';

export interface PooledInstance {
  /** Set when the process died on its own; such an instance is never handed out again. */
  readonly dead: boolean;
  /** Set when a use left state in the instance that a later job could see: it is retired, not reused. */
  readonly tainted: boolean;
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

interface Slot<T> {
  instance: T;
  uses: number;
  /** The replacement started ahead of this instance's planned retirement (undefined if it failed). */
  successor?: Promise<T | undefined>;
}

export function createInstancePool<T extends PooledInstance>(opts: InstancePoolOptions<T>): InstancePool<T> {
  const idle: Slot<T>[] = [];
  const waiters: (() => void)[] = [];
  /** Hand-overs under way: close() waits for them so no started instance outlives the pool. */
  const handOvers = new Set<Promise<void>>();
  let free = opts.size;
  let closed = false;

  const closedError = () => new QuireError('engine_unavailable', `${opts.name} is shutting down`);
  const wake = () => waiters.shift()?.();
  /** A start whose failure only means the slot is given back: the next use starts on demand and sees the error. */
  const startAhead = (): Promise<T | undefined> => opts.start().catch(() => undefined);

  /** The retiring instance's slot goes to `successor` once it is up, or back to the free count. */
  const handOver = (successor: Promise<T | undefined>): void => {
    const done = successor.then(async (instance) => {
      if (instance && !closed) idle.push({ instance, uses: 0 });
      else {
        await instance?.stop();
        free += 1;
      }
      wake();
    });
    handOvers.add(done);
    void done.finally(() => handOvers.delete(done));
  };

  const acquire = async (): Promise<Slot<T>> => {
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
          wake();
          throw err;
        }
      }
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };

  const release = async (slot: Slot<T>, broken: boolean): Promise<void> => {
    slot.uses += 1;
    const { instance } = slot;
    const spent = broken || instance.dead || instance.tainted || slot.uses >= opts.recycleAfter;
    if (!spent && !closed) {
      idle.push(slot);
      wake();
      return;
    }
    const successor = slot.successor ?? (closed ? undefined : startAhead());
    if (successor) handOver(successor);
    else {
      free += 1;
      wake();
    }
    await instance.stop();
  };

  return {
    async use(use) {
      const slot = await acquire();
      // Its last planned use: the replacement starts now and takes over when this one retires.
      if (slot.uses + 1 >= opts.recycleAfter && !slot.successor) slot.successor = startAhead();
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
      for (const wakeUp of waiters.splice(0)) wakeUp();
      await Promise.all(idle.splice(0).map((slot) => slot.instance.stop()));
      await Promise.all([...handOvers]);
    },
  };
}
