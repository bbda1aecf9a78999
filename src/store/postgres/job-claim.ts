// Fair claiming on PostgreSQL (docs/api.md §5) in one statement, so that many workers claim at once
// and each claim is one round trip: rank the accounts with queued work, lock the first one nobody
// else is claiming from (SKIP LOCKED), take its oldest queued job (SKIP LOCKED: one being canceled
// right now is passed over), and write the claim, the account's turn, the job.processing event and
// the change notice. When every ranked account is being claimed from, a second statement waits for
// the first one's lock instead of idling until the next poll with work queued.
// Its cost, measured per claim + complete (docs/benchmarks.md, "PostgreSQL claim cost"): the statement
// is a named prepared statement (connection.ts) whose generic plan PostgreSQL keeps, since planning
// it costs more than running it (forcing custom plans: 1.6 ms of server CPU per cycle, not 0.6); its
// text is compiled once per shape (bound-statements.ts); queued_left reads `waiting`, not the queue;
// and the event is written by a function only when someone receives it (outbox.ts).
import { randomUUID } from 'node:crypto';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { toolFilter, waitingAccounts } from '../sql/job-claim.js';
import { type JobRow, toJob } from '../sql/job-rows.js';
import type { Transition } from '../sql/queued-messages.js';
import type { Tables } from '../sql/tables.js';
import type { ClaimedJob, ClaimLimits } from '../types.js';
import { BoundStatements, type SlotOf } from './bound-statements.js';
import { noticesRead, outboxTail } from './outbox.js';

/** With no limits given, accounts still take turns but none is capped. */
const UNLIMITED = 2 ** 31 - 1;
/** Accounts ranked per claim: enough that concurrent claimers each find an unlocked one. */
const CANDIDATES = 8;

/** What decides the statement's text: the limits, and whether one account's lock is waited for. */
interface Shape {
  limits: ClaimLimits | null;
  waiting: boolean;
}

/** The values bound per call. */
interface Claim {
  workerId: string;
  leaseToken: string;
  leaseExpiresAt: number;
  now: number;
  origin: string;
  /** The account whose lock is waited for (`waiting`), else null. */
  waitFor: string | null;
}

/** The statement's one row: the claimed job's columns (all null when none was), plus the rest. */
type ClaimRow = { [K in keyof JobRow]: JobRow[K] | null } & {
  plan: string | null;
  first_candidate: string | null;
  queued: number;
  /** Queued jobs of the claimer's tools in the statement's snapshot (the claimed one too), up to 2. */
  queued_left: number;
};

/**
 * The claim. `account` is the whole of the limit check: `running` (kept by a trigger, see
 * postgres/migrations/001-accounts-keys-jobs-webhooks.ts) is compared on the account row as locked,
 * because in READ COMMITTED a row locked after another transaction changed it is re-read and the WHERE
 * evaluated again on the newest version. A claim committed by someone else after this statement began is therefore always counted,
 * although the statement's snapshot predates it. The same re-check makes `job` pass over a job
 * another claimer took meanwhile (its newest version is no longer queued).
 *
 * `ranked` orders accounts as SQLite does (sqlite/job-claim.ts): below their plan's concurrency,
 * fewest running first, then the one claimed longest ago, then by id. When `waiting`, only the
 * account `waitFor` is tried, and its lock is waited for.
 */
function claimStatement(claim: SlotOf<Claim>, shape: Shape): RawBuilder<ClaimRow> {
  const limits = shape.limits ?? undefined;
  const now = claim('now');
  const byPlan = JSON.stringify(limits?.concurrentJobsByPlan ?? {});
  const fallback = limits ? limits.defaultConcurrentJobs : UNLIMITED;
  const allowed = sql`coalesce((${byPlan}::jsonb ->> a.plan)::int, ${fallback}::int)`;
  // `waiting` runs in both forms: besides the ranking, it answers queued_left (see queuedLeft).
  const ranking = shape.waiting
    ? sql`ranked AS (SELECT ${claim('waitFor')}::text AS id, 1 AS turn)`
    : sql`ranked AS MATERIALIZED (
        SELECT a.id, row_number() OVER (ORDER BY a.running, coalesce(a.last_claim_at, 0), a.id) AS turn
        FROM waiting w JOIN accounts a ON a.id = w.account_id
        WHERE a.running < ${allowed}
        ORDER BY turn LIMIT ${CANDIDATES}
      )`;
  return sql<ClaimRow>`WITH RECURSIVE ${waitingAccounts(limits)},
    ${ranking},
    account AS MATERIALIZED (
      SELECT a.id, a.plan FROM accounts a JOIN ranked r ON r.id = a.id
      WHERE a.running < ${allowed}
      ORDER BY r.turn LIMIT 1
      -- NO KEY UPDATE, not UPDATE: inserting a job takes KEY SHARE on its account (the foreign key),
      -- which UPDATE would block.
      FOR NO KEY UPDATE OF a ${shape.waiting ? sql`` : sql`SKIP LOCKED`}
    ),
    job AS MATERIALIZED (
      SELECT j.id FROM jobs j
      WHERE j.account_id = (SELECT id FROM account) AND j.status = 'queued' ${toolFilter('j', limits)}
      ORDER BY j.created_at, j.id LIMIT 1
      FOR UPDATE OF j SKIP LOCKED
    ),
    claimed AS (
      UPDATE jobs SET
        status = 'processing',
        lease_token = ${claim('leaseToken')},
        lease_expires_at = ${claim('leaseExpiresAt')}::bigint,
        worker_id = ${claim('workerId')},
        attempts = attempts + 1,
        started_at = coalesce(started_at, ${now}::bigint)
      FROM job WHERE jobs.id = job.id
      RETURNING jobs.*
    ),
    turn AS (
      UPDATE accounts SET last_claim_at = ${now}::bigint WHERE id = (SELECT account_id FROM claimed)
    ),
    ${outboxTail({ source: 'claimed', type: 'job.processing', now, origin: claim('origin'), notice: 'updated' })}
    SELECT c.*, (SELECT plan FROM account) AS plan,
      (SELECT id FROM ranked ORDER BY turn LIMIT 1) AS first_candidate, ${noticesRead},
      ${queuedLeft(limits)} AS queued_left
    FROM (SELECT 1) AS one LEFT JOIN claimed c ON true`;
}

/**
 * Queued jobs of the claimer's tools in the statement's snapshot, counted up to 2, from `waiting`:
 * two accounts there mean two jobs, and one account's jobs are counted in its range of the
 * jobs_queue_account index (ORDER BY its order, so the scan stops at the second). A count over
 * `status = 'queued'` alone was planned as a bitmap scan, which reads every queued job's index entry
 * before LIMIT applies: O(queue) on every claim.
 */
function queuedLeft(limits: ClaimLimits | undefined): RawBuilder<number> {
  return sql<number>`CASE WHEN (SELECT count(*) FROM (
        SELECT 1 FROM waiting WHERE account_id IS NOT NULL LIMIT 2) w) > 1 THEN 2
      ELSE (SELECT count(*) FROM (
        SELECT 1 FROM jobs q
        WHERE q.account_id = (SELECT min(account_id) FROM waiting) AND q.status = 'queued' ${toolFilter('q', limits)}
        ORDER BY q.created_at, q.id LIMIT 2) s) END`;
}

const claims = new BoundStatements(claimStatement);

export async function claimNextFairly(
  db: Kysely<Tables>,
  origin: string,
  workerId: string,
  leaseMs: number,
  now: number,
  limits: ClaimLimits | undefined,
): Promise<Transition<ClaimedJob | undefined>> {
  if (limits?.tools?.length === 0) return { value: undefined, queued: false };
  const claim: Claim = {
    workerId,
    leaseToken: randomUUID(),
    leaseExpiresAt: now + leaseMs,
    now,
    origin,
    waitFor: null,
  };
  const shape = { limits: limits ?? null, waiting: false };
  let [row] = await claims.execute(db, shape, claim);
  // Ranked accounts but no claim: each was locked by another claimer, or lost its last claimable
  // job to one. Wait for the first one's claim to commit (milliseconds) and try it again.
  if (row?.id === null && row.first_candidate !== null) {
    const waitFor = row.first_candidate;
    [row] = await claims.execute(db, { ...shape, waiting: true }, { ...claim, waitFor });
  }
  if (!row || row.id === null || row.plan === null) return { value: undefined, queued: false };
  const value = {
    job: toJob(row as JobRow),
    leaseToken: claim.leaseToken,
    leaseExpiresAt: claim.leaseExpiresAt,
    plan: row.plan,
    // The snapshot predates this claim, so the claimed job is among those counted.
    moreQueued: Number(row.queued_left) > 1,
  };
  return { value, queued: Number(row.queued) > 0 };
}
