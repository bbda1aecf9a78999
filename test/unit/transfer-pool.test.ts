// The worker's transfer pool (src/jobs/transfer-pool.ts): a bound on transfers in flight and a share
// per account, so one account's slow peers leave room for another account's transfers.
import { describe, expect, it } from 'vitest';
import { TransferPool } from '../../src/jobs/transfer-pool.js';

/** A transfer that runs until `finish` is called; `started` says whether the pool let it begin. */
function transfer(pool: TransferPool, account: string) {
  const state = { started: false, finish: () => {} };
  const done = pool.run(account, () => {
    state.started = true;
    return new Promise<void>((resolve) => {
      state.finish = resolve;
    });
  });
  return Object.assign(state, { done });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('transfer pool', () => {
  it('holds an account at its share while another account’s transfer starts at once', async () => {
    const pool = new TransferPool(4, 2);
    const a = [transfer(pool, 'a'), transfer(pool, 'a'), transfer(pool, 'a')];
    const b = transfer(pool, 'b');
    await settle();
    expect(a.map((t) => t.started)).toEqual([true, true, false]);
    expect(b.started).toBe(true);
    a[0]!.finish();
    await a[0]!.done;
    await settle();
    expect(a[2]!.started).toBe(true);
  });

  it('never runs more than its size at once, and starts the waiters as room frees up', async () => {
    const pool = new TransferPool(2, 2);
    const all = ['a', 'b', 'c', 'd'].map((account) => transfer(pool, account));
    await settle();
    expect(all.map((t) => t.started)).toEqual([true, true, false, false]);
    all[1]!.finish();
    await settle();
    expect(all.map((t) => t.started)).toEqual([true, true, true, false]);
  });

  it('is crowded only by transfers waiting for room in the pool, not for their own account’s share', async () => {
    const pool = new TransferPool(2, 1);
    const running = [transfer(pool, 'a'), transfer(pool, 'b')];
    const ownShare = [transfer(pool, 'a'), transfer(pool, 'b'), transfer(pool, 'a')];
    await settle();
    expect(pool.crowded()).toBe(false);
    const forRoom = [transfer(pool, 'c'), transfer(pool, 'd')];
    await settle();
    expect(pool.crowded()).toBe(true);
    // The place a frees goes to c, which has none running, not to a's or b's older backlog.
    running[0]!.finish();
    await settle();
    expect(forRoom.map((t) => t.started)).toEqual([true, false]);
    expect(ownShare.map((t) => t.started)).toEqual([false, false, false]);
    // With none of its own running, a's backlog now waits for room too.
    expect(pool.crowded()).toBe(true);
    running[1]!.finish();
    await settle();
    expect(forRoom.map((t) => t.started)).toEqual([true, true]);
  });

  it('frees the place of a transfer that throws', async () => {
    const pool = new TransferPool(1, 1);
    await expect(pool.run('a', () => Promise.reject(new Error('reset')))).rejects.toThrow('reset');
    await expect(pool.run('a', async () => 'next')).resolves.toBe('next');
  });
});
