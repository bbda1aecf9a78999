// The engine instance pool's hand-over rules, on instances that only record what happens to them:
// a spent instance is never handed out again, its replacement is started ahead so the next use
// does not wait on a cold start, and no more than `size` instances ever serve at once.
import { describe, expect, it } from 'vitest';
import { createInstancePool, type PooledInstance } from '../../src/engines/instance-pool.js';

class Recorded implements PooledInstance {
  dead = false;
  tainted = false;
  stopped = false;
  constructor(readonly id: number) {}
  async stop(): Promise<void> {
    this.stopped = true;
  }
}

/** A pool whose starts are released by hand, so a test decides when a cold start finishes. */
function recordedPool(size: number, recycleAfter: number) {
  const started: Recorded[] = [];
  const pendingStarts: (() => void)[] = [];
  let manual = false;
  const pool = createInstancePool<Recorded>({
    name: 'test',
    size,
    recycleAfter,
    start: async () => {
      if (manual) await new Promise<void>((resolve) => pendingStarts.push(resolve));
      const instance = new Recorded(started.length + 1);
      started.push(instance);
      return instance;
    },
  });
  return {
    pool,
    started,
    holdStarts: () => {
      manual = true;
    },
    finishStarts: () => {
      for (const go of pendingStarts.splice(0)) go();
    },
    pendingStarts: () => pendingStarts.length,
  };
}

const idle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('instance pool', () => {
  it('retires an instance a use tainted and gives the next use a new one', async () => {
    const { pool, started } = recordedPool(1, 50);
    const first = await pool.use(async (instance) => {
      instance.tainted = true;
      return instance;
    });
    const second = await pool.use(async (instance) => instance);
    expect(first.stopped).toBe(true);
    expect(second).not.toBe(first);
    expect(second.tainted).toBe(false);
    expect(started).toHaveLength(2);
    await pool.close();
  });

  it('reuses an instance that stayed clean', async () => {
    const { pool, started } = recordedPool(1, 50);
    const first = await pool.use(async (instance) => instance);
    const second = await pool.use(async (instance) => instance);
    expect(second).toBe(first);
    expect(started).toHaveLength(1);
    await pool.close();
  });

  it('starts the replacement during the last planned use and hands it over when that use ends', async () => {
    const { pool, started, holdStarts, finishStarts, pendingStarts } = recordedPool(1, 2);
    await pool.use(async () => {});
    holdStarts();
    let startsDuringLastUse = -1;
    await pool.use(async () => {
      await idle();
      startsDuringLastUse = pendingStarts();
      finishStarts();
      await idle();
    });
    expect(startsDuringLastUse).toBe(1);
    const third = await pool.use(async (instance) => instance);
    expect(third.id).toBe(2);
    expect(started[0]!.stopped).toBe(true);
    expect(pendingStarts()).toBe(0);
    await pool.close();
  });

  it('never lets more than `size` instances serve at once while replacements start ahead', async () => {
    const { pool } = recordedPool(2, 1);
    let serving = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 12 }, () =>
        pool.use(async () => {
          serving += 1;
          most = Math.max(most, serving);
          await idle();
          serving -= 1;
        }),
      ),
    );
    expect(most).toBe(2);
    await pool.close();
  });

  it('stops a replacement that comes up after the pool closed', async () => {
    const { pool, started, holdStarts, finishStarts } = recordedPool(1, 1);
    holdStarts();
    const use = pool.use(async () => {});
    await idle();
    finishStarts();
    await use;
    const closing = pool.close();
    await idle();
    finishStarts();
    await closing;
    expect(started.length).toBeGreaterThan(0);
    for (const instance of started) expect(instance.stopped).toBe(true);
  });
});
