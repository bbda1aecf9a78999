// The NOTIFY channel PostgreSQL processes hear each other's job changes on: what a notice carries,
// and the notice as SQL, sent in the transaction of the change and so delivered only if it commits.
import { type Expression, type RawBuilder, sql } from 'kysely';
import type { JobChangeNotice } from '../../model/job-change.js';

export const CHANGES_CHANNEL = 'quire_job_changes';

/**
 * A notice as sent: the change plus the sending process, which ignores its own, and whether the
 * change queued webhook messages (the other processes' delivery slots wake only then).
 */
export interface ChangePayload {
  origin: string;
  jobId: string;
  kind: JobChangeNotice['kind'];
  webhooks?: boolean;
}

/**
 * `pg_notify(…)` of a change to the job whose id `jobId` yields (a parameter or a column); `webhooks`
 * is a boolean expression saying whether the change queued webhook messages.
 */
export function notifySql(
  origin: string,
  jobId: Expression<string>,
  kind: JobChangeNotice['kind'],
  webhooks: Expression<boolean> = sql<boolean>`false`,
): RawBuilder<void> {
  // Built in SQL where the id is only known there (a claim picks its job inside the statement).
  return sql`pg_notify(${CHANGES_CHANNEL}, json_build_object('origin', ${origin}::text, 'jobId', ${jobId}::text, 'kind', ${kind}::text, 'webhooks', ${webhooks})::text)`;
}
