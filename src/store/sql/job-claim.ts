// The write half of a claim, the same on both databases once the dialect has chosen the job under
// its locks: the job becomes processing under a fresh lease, the account's turn is recorded, and the
// job.processing event is written in the same transaction.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { ClaimedJob } from '../types.js';
import type { SqlDialect } from './dialect.js';
import { appendJobEvent } from './job-outbox.js';
import { type Tables, toJob } from './rows.js';

/** `AND <column> IN (…)` for a claim restricted to some tools; nothing when any tool will do. */
export function toolFilter(column: string, tools: readonly string[] | undefined) {
  return tools ? sql`AND ${sql.ref(column)} IN (${sql.join(tools)})` : sql``;
}

/**
 * The accounts with queued work (of `tools`, when given), as a recursive CTE named `waiting` (follow
 * `WITH RECURSIVE`): a loose index scan where each step jumps to the next account id in the partial
 * jobs_queue_account index, so it costs O(accounts · log queue), not O(queue) (a tool restriction
 * may read further into an account's queue). The same text runs on both databases.
 */
export function waitingAccounts(tools: readonly string[] | undefined) {
  return sql`waiting(account_id) AS (
      SELECT min(account_id) FROM jobs WHERE status = 'queued' ${toolFilter('tool', tools)}
      UNION ALL
      SELECT (SELECT min(q.account_id) FROM jobs q
              WHERE q.status = 'queued' AND q.account_id > waiting.account_id ${toolFilter('q.tool', tools)})
      FROM waiting WHERE waiting.account_id IS NOT NULL
    )`;
}

export interface ClaimChoice {
  jobId: string;
  accountId: string;
  plan: string;
}

export async function markClaimed(
  conn: Kysely<Tables>,
  choice: ClaimChoice,
  workerId: string,
  leaseMs: number,
  now: number,
  dialect: SqlDialect,
): Promise<ClaimedJob> {
  const leaseToken = randomUUID();
  const leaseExpiresAt = now + leaseMs;
  const row = await conn
    .updateTable('jobs')
    .set((eb) => ({
      status: 'processing',
      lease_token: leaseToken,
      lease_expires_at: leaseExpiresAt,
      worker_id: workerId,
      attempts: eb('attempts', '+', 1),
      started_at: eb.fn.coalesce('started_at', sql.val(now)),
    }))
    .where('id', '=', choice.jobId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await conn.updateTable('accounts').set({ last_claim_at: now }).where('id', '=', choice.accountId).execute();
  await appendJobEvent(conn, dialect, row, now);
  return { job: toJob(row), leaseToken, leaseExpiresAt, plan: choice.plan };
}
