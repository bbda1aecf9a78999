// What an account holds against its plan's quotas (docs/api.md §5) — bytes of jobs' files, jobs
// active, jobs created in the window — and the expiry of job records with the sweeper.
import { type Kysely, sql } from 'kysely';
import { activeStatuses, type JobRecord, terminalStatuses } from '../../model/job.js';
import type { AccountUsage } from '../quota-types.js';
import { toJob } from './job-rows.js';
import type { Tables } from './tables.js';

/**
 * Sizes are summed here from the rows that still hold files (inputs not yet deleted, or a result
 * kept): the JSON columns are parsed in one place for both dialects, and an account has only those
 * jobs still within retention to read.
 */
export async function accountUsage(
  db: Kysely<Tables>,
  accountId: string,
  since: number,
): Promise<AccountUsage> {
  const holding = await db
    .selectFrom('jobs')
    .select(['inputs', 'result', 'inputs_deleted_at', 'result_deleted_at'])
    .where('account_id', '=', accountId)
    .where(sql<boolean>`(inputs_deleted_at IS NULL OR (result IS NOT NULL AND result_deleted_at IS NULL))`)
    .execute();
  let storedBytes = 0;
  for (const row of holding) {
    if (row.inputs_deleted_at === null) {
      for (const input of JSON.parse(row.inputs) as { size?: number }[]) storedBytes += input.size ?? 0;
    }
    if (row.result !== null && row.result_deleted_at === null)
      storedBytes += (JSON.parse(row.result) as { size?: number }).size ?? 0;
  }
  const counts = await db
    .selectFrom('jobs')
    .select((eb) => [
      eb.fn
        .sum<number | string | null>(sql`CASE WHEN status IN ('queued', 'processing') THEN 1 ELSE 0 END`)
        .as('active'),
      eb.fn.sum<number | string | null>(sql`CASE WHEN created_at >= ${since} THEN 1 ELSE 0 END`).as('recent'),
    ])
    .where('account_id', '=', accountId)
    // Through jobs_account_created: only jobs of the window or still active matter here.
    .where((eb) => eb.or([eb('created_at', '>=', since), eb('status', 'in', activeStatuses)]))
    .executeTakeFirst();
  return {
    storedBytes,
    activeJobs: Number(counts?.active ?? 0),
    createdSince: Number(counts?.recent ?? 0),
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
