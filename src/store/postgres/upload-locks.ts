// The uploads store on PostgreSQL, plus the lock that lets any API process take any tus request:
// a session advisory lock per upload, held on one pooled connection for as long as the request
// writes, so two processes never append to the same upload at once.
import { type Kysely, sql } from 'kysely';
import type { Tables } from '../sql/tables.js';
import { SqlUploadStore } from '../sql/upload-store.js';

/**
 * The first key of the two-key advisory lock form: uploads' own key space, apart from the
 * migrations' one-key lock. The second key is hashtext(upload id); a hash collision only makes two
 * uploads wait for each other, never share a lock.
 */
const UPLOAD_LOCK_SPACE = 0x7475;

export class PostgresUploadStore extends SqlUploadStore {
  constructor(private readonly pg: Kysely<Tables>) {
    super(pg);
  }

  tryLock(id: string): Promise<(() => Promise<void>) | undefined> {
    return new Promise((resolve, reject) => {
      // The lock belongs to the session, so the connection stays out of the pool until unlock.
      this.pg
        .connection()
        .execute(async (conn) => {
          const { rows } = await sql<{ ok: boolean }>`
            select pg_try_advisory_lock(${UPLOAD_LOCK_SPACE}, hashtext(${id})) as ok`.execute(conn);
          if (!rows[0]?.ok) return resolve(undefined);
          let unlocked!: () => void;
          const released = new Promise<void>((done) => {
            unlocked = done;
          });
          let finished!: Promise<void>;
          resolve(async () => {
            unlocked();
            await finished;
          });
          finished = released.then(async () => {
            await sql`select pg_advisory_unlock(${UPLOAD_LOCK_SPACE}, hashtext(${id}))`.execute(conn);
          });
          await finished;
        })
        .catch(reject);
    });
  }
}
