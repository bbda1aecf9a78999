// The resumable uploads' rows (SQLite and PostgreSQL): owner, declared length, expiry and whether the
// last byte arrived. The tus data store holds the bytes; src/uploads/ keeps the two in step.
import type { Kysely, Selectable } from 'kysely';
import type { UploadRecord, UploadStore } from '../upload-types.js';
import type { Tables, UploadsTable } from './tables.js';

export class SqlUploadStore implements UploadStore {
  constructor(private readonly db: Kysely<Tables>) {}

  async create(upload: UploadRecord): Promise<void> {
    await this.db
      .insertInto('uploads')
      .values({
        id: upload.id,
        account_id: upload.accountId,
        length: upload.length,
        created_at: upload.createdAt,
        expires_at: upload.expiresAt,
        finished_at: upload.finishedAt ?? null,
      })
      .execute();
  }

  async get(accountId: string, id: string): Promise<UploadRecord | undefined> {
    const row = await this.db
      .selectFrom('uploads')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async find(id: string): Promise<UploadRecord | undefined> {
    const row = await this.db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async markFinished(id: string, now = Date.now()): Promise<void> {
    await this.db
      .updateTable('uploads')
      .set({ finished_at: now })
      .where('id', '=', id)
      .where('finished_at', 'is', null)
      .execute();
  }

  async take(accountId: string, id: string): Promise<UploadRecord | undefined> {
    const row = await this.db
      .deleteFrom('uploads')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('finished_at', 'is not', null)
      .returningAll()
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('uploads').where('id', '=', id).execute();
  }

  async reservedBytes(accountId: string, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('uploads')
      .select((eb) => eb.fn.sum<number | string | null>('length').as('bytes'))
      .where('account_id', '=', accountId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  async countUnfinished(): Promise<number> {
    const row = await this.db
      .selectFrom('uploads')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('finished_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async expired(now: number, limit: number): Promise<UploadRecord[]> {
    const rows = await this.db
      .selectFrom('uploads')
      .selectAll()
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }
}

function toRecord(row: Selectable<UploadsTable>): UploadRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    length: Number(row.length),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    ...(row.finished_at === null ? {} : { finishedAt: Number(row.finished_at) }),
  };
}
