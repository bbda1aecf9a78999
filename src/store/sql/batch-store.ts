// The batch store (SQLite and PostgreSQL): a batch row names the group; its jobs are ordinary rows
// of the jobs table carrying batch_id, read through the partial jobs_batch index.
import type { Kysely } from 'kysely';
import type { BatchRecord } from '../../model/batch.js';
import type { JobRecord } from '../../model/job.js';
import type { BatchStore } from '../job-stores.js';
import { toJob } from './job-rows.js';
import type { Tables } from './tables.js';

export class SqlBatchStore implements BatchStore {
  constructor(private readonly db: Kysely<Tables>) {}

  async create(batch: BatchRecord): Promise<BatchRecord> {
    await this.db
      .insertInto('batches')
      .values({
        id: batch.id,
        account_id: batch.accountId,
        tool: batch.tool,
        job_count: batch.jobCount,
        created_at: batch.createdAt,
      })
      .execute();
    return batch;
  }

  async get(accountId: string, id: string): Promise<BatchRecord | undefined> {
    const row = await this.db
      .selectFrom('batches')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        accountId: row.account_id,
        tool: row.tool,
        jobCount: row.job_count,
        createdAt: row.created_at,
      }
    );
  }

  async listJobs(accountId: string, batchId: string): Promise<JobRecord[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('batch_id', '=', batchId)
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toJob);
  }
}
