// Fair claiming on PostgreSQL (contract §5), with row locks instead of SQLite's single write lock so
// that many workers claim at once: the accounts with queued work are ranked without locks, then
// each claimer locks one account row (SKIP LOCKED: a claimer busy with an account sends the others
// to the next one), counts that account's running jobs again under the lock, and takes its oldest
// queued job (SKIP LOCKED: a job being canceled right now is passed over).
import { type Kysely, sql } from 'kysely';
import type { SqlDialect } from '../sql/dialect.js';
import { type ClaimChoice, markClaimed, waitingAccounts } from '../sql/job-claim.js';
import type { Tables } from '../sql/rows.js';
import type { ClaimedJob, ClaimLimits } from '../types.js';
import { transaction } from './connection.js';

/** With no limits given, accounts still take turns but none is capped. */
const UNLIMITED = 2 ** 31 - 1;
/** Accounts ranked per claim: enough that concurrent claimers each find an unlocked one. */
const CANDIDATES = 8;

interface Candidate {
  account_id: string;
  plan: string;
  allowed: number;
}

/**
 * The ranking of SQLite's claim: accounts with queued work (a loose index scan over the partial
 * jobs_queue_account index, so O(accounts), not O(queue)), below their plan's concurrency, fewest
 * running first, then the one claimed longest ago, then by id.
 */
async function rankAccounts(db: Kysely<Tables>, limits: ClaimLimits | undefined): Promise<Candidate[]> {
  const byPlan = JSON.stringify(limits?.concurrentJobsByPlan ?? {});
  const fallback = limits ? limits.defaultConcurrentJobs : UNLIMITED;
  const { rows } = await sql<Candidate>`
    WITH RECURSIVE ${waitingAccounts(limits?.tools)},
    turns AS MATERIALIZED (
      SELECT a.id, a.plan, a.last_claim_at,
        (SELECT count(*) FROM jobs r WHERE r.account_id = a.id AND r.status = 'processing') AS running,
        coalesce((${byPlan}::jsonb ->> a.plan)::int, ${fallback}::int) AS allowed
      FROM waiting w JOIN accounts a ON a.id = w.account_id
    )
    SELECT id AS account_id, plan, allowed FROM turns
    WHERE running < allowed
    ORDER BY running, coalesce(last_claim_at, 0), id
    LIMIT ${CANDIDATES}`.execute(db);
  return rows;
}

function lockAccount(conn: Kysely<Tables>, accountId: string, skipLocked: boolean) {
  // NO KEY UPDATE, not UPDATE: inserting a job takes KEY SHARE on its account (the foreign key),
  // which UPDATE would block for the length of the claim.
  const query = conn.selectFrom('accounts').select('id').where('id', '=', accountId).forNoKeyUpdate();
  return (skipLocked ? query.skipLocked() : query).executeTakeFirst();
}

/**
 * Under the account's lock, in one statement (this statement's snapshot already sees every claim
 * committed before we got the lock): its oldest queued job that nobody holds, if the account runs
 * fewer jobs than it may.
 */
async function oldestClaimable(
  conn: Kysely<Tables>,
  candidate: Candidate,
  tools: readonly string[] | undefined,
): Promise<ClaimChoice | undefined> {
  const job = await conn
    .selectFrom('jobs')
    .select('id')
    .where('account_id', '=', candidate.account_id)
    .where('status', '=', sql.lit('queued'))
    .where(
      (eb) =>
        eb
          .selectFrom('jobs as r')
          .select(eb.fn.countAll<number>().as('running'))
          .where('r.account_id', '=', candidate.account_id)
          .where('r.status', '=', sql.lit('processing')),
      '<',
      candidate.allowed,
    )
    .$if(tools !== undefined, (query) => query.where('tool', 'in', tools!))
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return job && { jobId: job.id, accountId: candidate.account_id, plan: candidate.plan };
}

export async function claimNextFairly(
  db: Kysely<Tables>,
  workerId: string,
  leaseMs: number,
  now: number,
  limits: ClaimLimits | undefined,
  dialect: SqlDialect,
): Promise<ClaimedJob | undefined> {
  if (limits?.tools?.length === 0) return undefined;
  const candidates = await rankAccounts(db, limits);
  if (candidates.length === 0) return undefined;
  return transaction(db, async (conn) => {
    const busy: Candidate[] = [];
    for (const candidate of candidates) {
      if (!(await lockAccount(conn, candidate.account_id, true))) {
        busy.push(candidate);
        continue;
      }
      const choice = await oldestClaimable(conn, candidate, limits?.tools);
      if (choice) return markClaimed(conn, choice, workerId, leaseMs, now, dialect);
    }
    // Every ranked account with work was being claimed by someone else: wait for the first one's
    // claim to commit (milliseconds) instead of idling until the next poll with work queued.
    const first = busy[0];
    if (!first) return undefined;
    await lockAccount(conn, first.account_id, false);
    const choice = await oldestClaimable(conn, first, limits?.tools);
    return choice && markClaimed(conn, choice, workerId, leaseMs, now, dialect);
  });
}
