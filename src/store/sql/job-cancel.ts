// The ends a client asks for, and the row it may see: cancel (queued or processing → canceled) and delete (canceled first if
// it had not ended, then hidden). Either scrubs the job's secret options in the same write, and where
// the job held any, has the dialect forget the overwritten pages (SQLite's WAL) as a finished job's are.
import type { Kysely } from 'kysely';
import type { JobRecord } from '../../model/job.js';
import { terminalStatuses } from '../../model/job.js';
import { scrubSecretOptions } from '../../model/redact.js';
import type { CancelOutcome } from '../types.js';
import type { SqlDialect } from './dialect.js';
import { type JobRow, noLease, toJob } from './job-rows.js';
import type { QueuedMessages, Transition } from './queued-messages.js';
import type { Tables } from './tables.js';

export async function cancelJob(
  db: Kysely<Tables>,
  dialect: SqlDialect,
  messages: QueuedMessages,
  accountId: string,
  id: string,
  now: number,
): Promise<CancelOutcome> {
  let scrubbed = false;
  const outcome = await dialect.transaction(db, async (conn): Promise<Transition<CancelOutcome>> => {
    const row = await dialect.lockRows(visibleRow(conn, accountId, id)).executeTakeFirst();
    if (!row) return { value: { outcome: 'not_found' }, queued: false };
    if (terminalStatuses.includes(row.status))
      return { value: { outcome: 'terminal', job: toJob(row) }, queued: false };
    const canceled = await cancelRow(conn, row, now);
    const queued = await dialect.appendJobEvent(conn, canceled, now);
    const wasProcessing = row.status === 'processing';
    scrubbed = holdsSecrets(row);
    return { value: { outcome: 'canceled', job: toJob(canceled), wasProcessing }, queued };
  });
  // A canceled job's secrets go as a finished one's do (JobStore.complete): from the WAL too.
  if (scrubbed) await dialect.forgetOverwritten(db);
  return messages.settle(outcome);
}

export async function deleteJob(
  db: Kysely<Tables>,
  dialect: SqlDialect,
  messages: QueuedMessages,
  accountId: string,
  id: string,
  now: number,
): Promise<JobRecord | undefined> {
  let scrubbed = false;
  const deleted = await dialect.transaction(db, async (conn) => {
    const row = await dialect.lockRows(visibleRow(conn, accountId, id)).executeTakeFirst();
    if (!row) return { value: undefined, queued: false };
    let ended = row;
    let queued = false;
    if (!terminalStatuses.includes(row.status)) {
      ended = await cancelRow(conn, row, now);
      queued = await dialect.appendJobEvent(conn, ended, now);
      scrubbed = holdsSecrets(row);
    }
    await conn.updateTable('jobs').set({ deleted_at: now }).where('id', '=', id).execute();
    return { value: toJob(ended), queued };
  });
  if (scrubbed) await dialect.forgetOverwritten(db);
  return messages.settle(deleted);
}

/** The account's own job, unless deleted: what a client may read, cancel or delete. */
export function visibleRow(conn: Kysely<Tables>, accountId: string, id: string) {
  return conn
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null);
}

/** Whether the row was given a secret option that a scrub overwrites. */
function holdsSecrets(row: JobRow): boolean {
  const options = JSON.parse(row.options) as Record<string, unknown>;
  return (JSON.parse(row.secret_options) as string[]).some((name) => Object.hasOwn(options, name));
}

/** queued/processing → canceled; clearing the lease is what tells a running worker to stop. */
function cancelRow(conn: Kysely<Tables>, row: JobRow, now: number): Promise<JobRow> {
  const options = scrubSecretOptions(JSON.parse(row.options), JSON.parse(row.secret_options));
  return conn
    .updateTable('jobs')
    .set({ status: 'canceled', completed_at: now, options: JSON.stringify(options), ...noLease })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
