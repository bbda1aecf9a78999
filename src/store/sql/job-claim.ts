// The SQL both databases' fair claims share: which accounts have queued work, and the tool filter of
// a worker that lacks some engines.
import { sql } from 'kysely';
import type { ClaimLimits } from '../types.js';

/**
 * For a claim restricted to some tools: `AND <alias.>tool IN (…)`, and no later step (next_steps)
 * naming a tool this worker lacks; nothing when any tool will do.
 */
export function toolFilter(alias: string | undefined, limits: ClaimLimits | undefined) {
  const column = (name: string) => sql.ref(alias === undefined ? name : `${alias}.${name}`);
  const tools = limits?.tools;
  const first = tools ? sql`AND ${column('tool')} IN (${sql.join(tools)})` : sql``;
  // next_steps is JSON.stringify's text, where `"tool":"<name>"` with bare quotes only occurs as a
  // step's tool member (quotes inside option values are escaped); tool names hold no LIKE wildcards.
  const later = (limits?.unavailableTools ?? []).map(
    (name) => sql`AND ${column('next_steps')} NOT LIKE ${`%"tool":${JSON.stringify(name)}%`}`,
  );
  return later.length === 0 ? first : sql`${first} ${sql.join(later, sql` `)}`;
}

/**
 * The accounts with queued work (of `tools`, when given), as a recursive CTE named `waiting` (follow
 * `WITH RECURSIVE`): a loose index scan where each step jumps to the next account id in the partial
 * jobs_queue_account index, so it costs O(accounts · log queue), not O(queue) (a tool restriction
 * may read further into an account's queue). The same text runs on both databases.
 */
export function waitingAccounts(limits: ClaimLimits | undefined) {
  return sql`waiting(account_id) AS (
      SELECT min(account_id) FROM jobs WHERE status = 'queued' ${toolFilter(undefined, limits)}
      UNION ALL
      SELECT (SELECT min(q.account_id) FROM jobs q
              WHERE q.status = 'queued' AND q.account_id > waiting.account_id ${toolFilter('q', limits)})
      FROM waiting WHERE waiting.account_id IS NOT NULL
    )`;
}
