// What an account holds against its plan's quotas (docs/api.md §5) — bytes of jobs' files, jobs
// active, jobs created in the window — and the expiry of job records with the sweeper.
import { type Kysely, sql } from 'kysely';
import { activeStatuses, type JobRecord, terminalStatuses } from '../../model/job.js';
import type { AccountUsage } from '../quota-types.js';
import { toJob } from './job-rows.js';
import type { Tables } from './tables.js';

/**
 * One statement, three indexed reads whatever the account keeps (EXPLAIN in docs/operations.md):
 * the stored bytes from the covering partial index jobs_account_stored (its predicate repeated so
 * SQLite uses it), the active jobs from jobs_account_status, the window's jobs from
 * jobs_account_created. Active and recent are counted apart so each reads its index alone.
 */
export async function accountUsage(
  db: Kysely<Tables>,
  accountId: string,
  since: number,
): Promise<AccountUsage> {
  const row = await db
    .selectNoFrom((eb) => [
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
    ])
    .executeTakeFirstOrThrow();
  return {
    storedBytes: Number(row.stored ?? 0),
    activeJobs: Number(row.active ?? 0),
    createdSince: Number(row.recent ?? 0),
  };
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
