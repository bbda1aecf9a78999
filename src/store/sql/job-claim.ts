// The SQL both databases' fair claims share: which accounts have queued work, and the tool filter of
// a worker that lacks some engines.
import { sql } from 'kysely';

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
