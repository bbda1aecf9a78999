// Conformance of the resumable uploads' store (src/store/upload-types.ts): ownership, the one-shot
// take of a finished upload, expiry order and, where offered, the cross-process lock. Every Database
// implementation runs these unchanged.
import { describe, expect, test } from 'vitest';
import type { UploadRecord } from '../../src/store/upload-types.js';
import { ALICE, BOB, type OpenDatabase, T0, useDatabase } from './support/job-fixtures.js';

const upload = (id: string, extra: Partial<UploadRecord> = {}): UploadRecord => ({
  id,
  accountId: ALICE,
  length: 5_000_000_000,
  createdAt: T0,
  expiresAt: T0 + 1000,
  ...extra,
});

export function describeUploadConformance(open: OpenDatabase): void {
  const db = useDatabase(open);

  describe('uploads', () => {
    test('an upload is its account’s alone, lengths above 4 GiB included', async () => {
      await db().uploads.create(upload('upl_1'));
      expect(await db().uploads.get(ALICE, 'upl_1')).toEqual(upload('upl_1'));
      expect(await db().uploads.get(BOB, 'upl_1')).toBeUndefined();
      expect(await db().uploads.find('upl_1')).toEqual(upload('upl_1'));
    });

    test('only a finished upload can be taken, only by its account, and only once', async () => {
      await db().uploads.create(upload('upl_2'));
      expect(await db().uploads.take(ALICE, 'upl_2')).toBeUndefined();
      expect(await db().uploads.countUnfinished()).toBe(1);
      await db().uploads.markFinished('upl_2', T0 + 5);
      expect(await db().uploads.countUnfinished()).toBe(0);
      expect(await db().uploads.take(BOB, 'upl_2')).toBeUndefined();
      const takes = await Promise.all([db().uploads.take(ALICE, 'upl_2'), db().uploads.take(ALICE, 'upl_2')]);
      expect(takes.filter(Boolean)).toEqual([{ ...upload('upl_2'), finishedAt: T0 + 5 }]);
      expect(await db().uploads.find('upl_2')).toBeUndefined();
    });

    test('lists uploads past their expiry, oldest first, and removes them', async () => {
      await db().uploads.create(upload('upl_late', { expiresAt: T0 + 300 }));
      await db().uploads.create(upload('upl_early', { expiresAt: T0 + 100 }));
      await db().uploads.create(upload('upl_future', { expiresAt: T0 + 10_000 }));
      const expired = await db().uploads.expired(T0 + 500, 10);
      expect(expired.map((u) => u.id)).toEqual(['upl_early', 'upl_late']);
      await db().uploads.remove('upl_early');
      expect((await db().uploads.expired(T0 + 500, 10)).map((u) => u.id)).toEqual(['upl_late']);
    });

    test('a lock, where offered, has one holder at a time and is free again once released', async () => {
      const tryLock = db().uploads.tryLock?.bind(db().uploads);
      if (!tryLock) return;
      const release = await tryLock('upl_locked');
      expect(release).toBeDefined();
      expect(await tryLock('upl_locked')).toBeUndefined();
      const other = await tryLock('upl_other');
      expect(other).toBeDefined();
      await release!();
      const again = await tryLock('upl_locked');
      expect(again).toBeDefined();
      await again!();
      await other!();
    });
  });
}
