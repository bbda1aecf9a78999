// Fair claiming for the SQLite job store (docs/api.md §5): an account never runs more jobs than its
// plan allows, and accounts with queued work take turns, so one account's backlog cannot starve
// another's single job.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { toolFilter, waitingAccounts } from '../sql/job-claim.js';
import { enabledEndpointsJson, endpoints, writeJobEvent } from '../sql/job-outbox.js';
import { toJob } from '../sql/job-rows.js';
import type { Transition } from '../sql/queued-messages.js';
import type { Tables } from '../sql/tables.js';
import type { ClaimedJob, ClaimLimits } from '../types.js';
import { withWriteLock } from './connection.js';

/** With no limits given, accounts still take turns but none is capped. */
const UNLIMITED = 2 ** 31 - 1;

interface Pick {
  job_id: string;
  account_id: string;
  plan: string;
  /** Queued jobs of the claimer's tools counted up to 2, the picked one included. */
  queued: number;
}

/**
 * The choice, in one statement:
 * 1. `waiting` lists the accounts with queued work by a loose index scan (each step jumps to the
 *    next account id in jobs_queue_account), so it costs O(accounts · log queue), not O(queue):
 *    a backlog of 100 000 jobs in one account is one step.
 * 2. `turns` counts each one's processing jobs (jobs_account_status) and looks its plan's
 *    concurrency up in the limits passed as JSON (plans are configuration, not rows);
 *    MATERIALIZED so each count runs once, not again for the ORDER BY.
 * 3. Of the accounts below their limit, the one with the fewest running jobs goes first, then the
 *    one whose last claim is oldest (round robin among equals), then by id so the order is total;
 *    its oldest queued job is taken.
 * 4. `queued` says whether another job (of these tools) waits besides it, two rows of the
 *    jobs_queue_account index at most, so the worker knows whether to claim again after this one.
 * The literal 'queued'/'processing' let SQLite use the partial indexes (it needs the predicate
 * visibly implied). PostgreSQL makes the same choice with row locks instead of SQLite's
 * database-wide write lock (postgres/job-claim.ts).
 */
function pickNext(db: Kysely<Tables>, limits: ClaimLimits | undefined) {
  const byPlan = JSON.stringify(limits?.concurrentJobsByPlan ?? {});
  const fallback = limits ? limits.defaultConcurrentJobs : UNLIMITED;
  return sql<Pick>`
    WITH RECURSIVE ${waitingAccounts(limits)},
    turns AS MATERIALIZED (
      SELECT a.id, a.plan, a.last_claim_at,
        (SELECT count(*) FROM jobs r WHERE r.account_id = a.id AND r.status = 'processing') AS running,
        coalesce((SELECT l.value FROM json_each(${byPlan}) l WHERE l.key = a.plan), ${fallback}) AS allowed
      FROM waiting w JOIN accounts a ON a.id = w.account_id
    )
    SELECT t.id AS account_id, t.plan,
      (SELECT j.id FROM jobs j WHERE j.account_id = t.id AND j.status = 'queued'
       ${toolFilter('j', limits)} ORDER BY j.created_at, j.id LIMIT 1) AS job_id,
      (SELECT count(*) FROM (SELECT 1 FROM jobs q WHERE q.status = 'queued' ${toolFilter('q', limits)}
       LIMIT 2)) AS queued
    FROM turns t
    WHERE t.running < t.allowed
    ORDER BY t.running, coalesce(t.last_claim_at, 0), t.id
    LIMIT 1`.execute(db);
}

export async function claimNextFairly(
  db: Kysely<Tables>,
  workerId: string,
  leaseMs: number,
  now: number,
  limits: ClaimLimits | undefined,
  expectWork: boolean,
): Promise<Transition<ClaimedJob | undefined>> {
  const none = { value: undefined, queued: false };
  if (limits?.tools?.length === 0) return none;
  // Idle workers poll often: when nothing is claimable (empty queue, or every waiting account at
  // its limit) a plain read answers without taking the write lock. A worker told of work skips it.
  if (!expectWork && (await pickNext(db, limits)).rows.length === 0) return none;
  return withWriteLock(db, async (conn) => {
    // Chosen again under the lock: another process may have claimed since the read above.
    const pick = (await pickNext(conn, limits)).rows[0];
    if (!pick) return none;
    return markClaimed(conn, pick, workerId, leaseMs, now);
  });
}

/**
 * The write half, under the same lock: the job becomes processing under a fresh lease, the account's
 * turn is recorded, and the job.processing event is written.
 */
async function markClaimed(
  conn: Kysely<Tables>,
  pick: Pick,
  workerId: string,
  leaseMs: number,
  now: number,
): Promise<Transition<ClaimedJob>> {
  const leaseToken = randomUUID();
  const leaseExpiresAt = now + leaseMs;
  const { endpoints: receivers, ...row } = await conn
    .updateTable('jobs')
    .set((eb) => ({
      status: 'processing',
      lease_token: leaseToken,
      lease_expires_at: leaseExpiresAt,
      worker_id: workerId,
      attempts: eb('attempts', '+', 1),
      started_at: eb.fn.coalesce('started_at', sql.val(now)),
    }))
    .where('id', '=', pick.job_id)
    .returningAll()
    .returning(enabledEndpointsJson.as('endpoints'))
    .executeTakeFirstOrThrow();
  await conn.updateTable('accounts').set({ last_claim_at: now }).where('id', '=', pick.account_id).execute();
  const queued = await writeJobEvent(conn, row, now, endpoints(receivers));
  const moreQueued = Number(pick.queued) > 1;
  return { value: { job: toJob(row), leaseToken, leaseExpiresAt, plan: pick.plan, moreQueued }, queued };
}
