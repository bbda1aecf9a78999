// What an account holds against its plan's quotas (docs/api.md §5) — bytes of jobs' files, jobs
// active, jobs created in the window — and the expiry of job records with the sweeper.
import { type Kysely, sql } from 'kysely';
import { activeStatuses, type JobRecord, terminalStatuses } from '../../model/job.js';
import type { AccountUsage } from '../quota-types.js';
import { toJob } from './job-rows.js';
import type { Tables } from './tables.js';

/**
 * One statement of three indexed reads, run twice per POST /jobs: the stored bytes from the partial
 * index jobs_account_stored (its predicate repeated so SQLite uses it), the active jobs from
 * jobs_account_status, the window's jobs from jobs_account_created, each counted apart so that it
 * reads its index alone (the job-store conformance tests of each dialect check the plan). SQLite
 * answers all three from the indexes; PostgreSQL does too where the visibility map lets it, else it
 * reads the rows the index finds. The sum still grows with the jobs the account holds files for, at
 * a few integers each.
 */
export async function accountUsage(
  db: Kysely<Tables>,
  accountId: string,
  since: number,
): Promise<AccountUsage> {
  const row = await accountUsageQuery(db, accountId, since).executeTakeFirstOrThrow();
  return {
    storedBytes: Number(row.stored ?? 0),
    activeJobs: Number(row.active ?? 0),
    createdSince: Number(row.recent ?? 0),
  };
}

/** The statement alone, for the tests that read its plan. */
export function accountUsageQuery(db: Kysely<Tables>, accountId: string, since: number) {
  return db.selectNoFrom((eb) => [
    eb
      .selectFrom('jobs')
      .select(
        sql<number>`CAST(COALESCE(SUM(
          CASE WHEN inputs_deleted_at IS NULL THEN input_bytes ELSE 0 END +
          CASE WHEN result_deleted_at IS NULL THEN result_bytes ELSE 0 END), 0) AS BIGINT)`.as('n'),
      )
      .where('account_id', '=', accountId)
      .where(sql<boolean>`(inputs_deleted_at IS NULL OR (result_bytes > 0 AND result_deleted_at IS NULL))`)
      .as('stored'),
    eb
      .selectFrom('jobs')
      .select((c) => c.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('status', 'in', activeStatuses)
      .as('active'),
    eb
      .selectFrom('jobs')
      .select((c) => c.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .as('recent'),
  ]);
}

/** Ended jobs whose record is past retention (ended, or deleted, before `before`), oldest first. */
export async function listExpiredRecords(
  db: Kysely<Tables>,
  before: number,
  limit: number,
): Promise<JobRecord[]> {
  const rows = await db
    .selectFrom('jobs')
    .selectAll()
    // jobs_record_expiry (its predicate repeated so SQLite uses the partial index); an active job
    // has no completed_at and is never taken.
    .where(sql<boolean>`completed_at IS NOT NULL`)
    .where('completed_at', '<', before)
    .orderBy('completed_at')
    .limit(limit)
    .execute();
  return rows.map(toJob);
}

/** Deletes the rows of ended jobs; the caller has deleted their files first. */
export async function deleteRecords(db: Kysely<Tables>, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .deleteFrom('jobs')
    .where('id', 'in', ids)
    .where('status', 'in', terminalStatuses)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
