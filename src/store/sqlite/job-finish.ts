// How a worker ends a job on SQLite: under the write lock, the conditional update, the secret scrub
// and the job's event, committed together; a job with neither scrub nor receivers in the one update
// (PostgreSQL does it all in one statement: postgres/job-finish.ts).
import { type Kysely, type SqlBool, sql, type Updateable } from 'kysely';
import { scrubSecretOptions } from '../../model/redact.js';
import type { JobEnding } from '../sql/dialect.js';
import { enabledEndpointsJson, endpoints, writeJobEvent } from '../sql/job-outbox.js';
import { type JobRow, noLease } from '../sql/job-rows.js';
import type { Transition } from '../sql/queued-messages.js';
import type { JobsTable, Tables } from '../sql/tables.js';
import { checkpointWal, withWriteLock } from './connection.js';

export async function finishLeased(
  db: Kysely<Tables>,
  id: string,
  token: string,
  ending: JobEnding,
  now: number,
): Promise<Transition<JobRow | undefined>> {
  const outcome =
    ending.status === 'succeeded'
      ? {
          status: 'succeeded' as const,
          progress: 100,
          result: JSON.stringify(ending.result),
          result_bytes: ending.result.size,
          expires_at: ending.expiresAt,
        }
      : { status: 'failed' as const, error: JSON.stringify(ending.error) };
  const changes = { ...outcome, completed_at: now, ...noLease };
  const alone = await finishAlone(db, id, token, changes);
  if (alone) return { value: alone, queued: false };
  let scrubbed = false;
  const finished = await withWriteLock(db, async (conn) => {
    const found = await conn
      .updateTable('jobs')
      .set(changes)
      .where('id', '=', id)
      .where('lease_token', '=', token)
      .where('status', '=', 'processing')
      .returningAll()
      .returning(enabledEndpointsJson.as('endpoints'))
      .executeTakeFirst();
    if (!found) return { value: undefined, queued: false };
    const { endpoints: receivers, ...ended } = found;
    const secretOptions = JSON.parse(ended.secret_options) as string[];
    const options = JSON.parse(ended.options) as Record<string, unknown>;
    // Every PDF tool declares the input password; only a job that was given a secret has one to scrub.
    if (secretOptions.some((name) => Object.hasOwn(options, name))) {
      ended.options = JSON.stringify(scrubSecretOptions(options, secretOptions));
      await conn.updateTable('jobs').set({ options: ended.options }).where('id', '=', id).execute();
      scrubbed = true;
    }
    return { value: ended, queued: await writeJobEvent(conn, ended, now, endpoints(receivers)) };
  });
  if (scrubbed) await checkpointWal(db);
  return finished;
}

/**
 * Most jobs have no webhook receiver and no secret option to scrub: their end is then this one
 * statement, atomic by itself, with no BEGIN/COMMIT around it (the write lock is taken for the
 * statement alone). Its WHERE passes over any other job, which ends in the transaction above; so
 * does a lost lease, refused there again. The secret check matches option names exactly (no JSON
 * path quoting), as the scrub's `Object.hasOwn` does.
 */
async function finishAlone(
  db: Kysely<Tables>,
  id: string,
  token: string,
  changes: Updateable<JobsTable>,
): Promise<JobRow | undefined> {
  return db
    .updateTable('jobs')
    .set(changes)
    .where('id', '=', id)
    .where('lease_token', '=', token)
    .where('status', '=', 'processing')
    .where(
      sql<SqlBool>`NOT EXISTS (SELECT 1 FROM webhook_endpoints e
        WHERE e.account_id = jobs.account_id AND e.status = 'enabled')
      AND NOT EXISTS (SELECT 1 FROM json_each(jobs.options) o JOIN json_each(jobs.secret_options) s
        ON o.key = s.value)`,
    )
    .returningAll()
    .executeTakeFirst();
}
