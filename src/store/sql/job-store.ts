// The job store on SQLite and PostgreSQL: account-scoped reads, the claim/lease protocol workers
// follow, and the terminal transitions. Every worker write is conditional on (id, lease token, processing), so a
// worker that lost its lease (expired, swept, canceled) can never overwrite what happened since.
import type { CompiledQuery, Kysely, UpdateQueryBuilder, UpdateResult } from 'kysely';
import { QuireError } from '../../errors/quire-error.js';
import type { InputFile, JobError, JobRecord, JobResult, JobStatus } from '../../model/job.js';
import type { JobChangeNotice } from '../../model/job-change.js';
import type { JobStore } from '../job-stores.js';
import type { AccountUsage } from '../quota-types.js';
import type {
  CancelOutcome,
  ClaimedJob,
  ClaimLimits,
  ListJobsQuery,
  NewJob,
  SweepOutcome,
} from '../types.js';
import type { JobEnding, SqlDialect } from './dialect.js';
import { cancelJob, deleteJob, visibleRow } from './job-cancel.js';
import {
  countJobsByStatus,
  listEndedWithInputs,
  listExpiredResults,
  markInputsDeleted,
  markResultDeleted,
  sweepExpiredLeases,
} from './job-maintenance.js';
import { enabledEndpointsJson, endpoints } from './job-outbox.js';
import { accountUsage, deleteRecords, listExpiredRecords } from './job-quotas.js';
import { fromNewJob, inputBytes, type JobRow, toJob } from './job-rows.js';
import { keysetPage, type PageCursor } from './keyset-page.js';
import type { QueuedMessages } from './queued-messages.js';
import type { Tables } from './tables.js';

/** Progress a worker may report; 100 belongs to `complete` alone (docs/api.md §2). */
const MAX_WORKER_PROGRESS = 99;

export class SqlJobStore implements JobStore {
  private getQuery: CompiledQuery | undefined;

  /** `messages` hears, after each commit, of the transitions that queued webhook messages. */
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
    private readonly messages: QueuedMessages,
  ) {}

  async create(job: NewJob): Promise<JobRecord> {
    // SQLite writes the event in TypeScript: the insert returns the receivers it needs as well.
    const sqlite = this.dialect.name === 'sqlite';
    const created = await this.dialect.transaction(this.db, async (conn) => {
      const { endpoints: receivers, ...row } = await conn
        .insertInto('jobs')
        .values(fromNewJob(job))
        .returningAll()
        .$if(sqlite, (insert) => insert.returning(enabledEndpointsJson.as('endpoints')))
        .executeTakeFirstOrThrow();
      const known = receivers === undefined ? undefined : endpoints(receivers);
      return {
        value: toJob(row),
        queued: await this.dialect.appendJobEvent(conn, row, job.createdAt, known),
      };
    });
    return this.messages.settle(created);
  }

  async get(accountId: string, id: string): Promise<JobRecord | undefined> {
    // The hottest read (every poll of a job): its SQL is built once and only the values change.
    this.getQuery ??= visibleRow(this.db, ':account', ':id').compile();
    const { rows } = await this.db.executeQuery<JobRow>({
      ...this.getQuery,
      parameters: this.getQuery.parameters.map((p) => (p === ':id' ? id : p === ':account' ? accountId : p)),
    });
    return rows[0] && toJob(rows[0]);
  }

  async list(accountId: string, query: ListJobsQuery): Promise<{ jobs: JobRecord[]; hasMore: boolean }> {
    let select = this.db
      .selectFrom('jobs')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null);
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    if (query.tool !== undefined) select = select.where('tool', '=', query.tool);
    let cursor: PageCursor | undefined;
    if (query.startingAfter !== undefined) {
      // The cursor may be a job deleted since the previous page: its position still stands.
      cursor = await this.db
        .selectFrom('jobs')
        .select(['created_at', 'id'])
        .where('id', '=', query.startingAfter)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (!cursor) throw new QuireError('invalid_cursor', 'starting_after does not name one of your jobs');
    }
    const page = await keysetPage(select, ['created_at', 'id'], cursor, query.limit);
    return { jobs: page.rows.map(toJob), hasMore: page.hasMore };
  }

  async claimNext(
    workerId: string,
    leaseMs: number,
    now = Date.now(),
    limits?: ClaimLimits,
    expectWork = false,
  ): Promise<ClaimedJob | undefined> {
    const claimed = await this.dialect.claimNext(this.db, workerId, leaseMs, now, limits, expectWork);
    return this.messages.settle(claimed);
  }

  async renewLease(id: string, token: string, leaseMs: number, now = Date.now()): Promise<boolean> {
    return this.whileLeased(this.db.updateTable('jobs').set({ lease_expires_at: now + leaseMs }), id, token);
  }

  async release(id: string, token: string): Promise<boolean> {
    const query = this.db
      .updateTable('jobs')
      // Back to the queue as if never claimed this time: no stall is counted for an orderly stop.
      .set((eb) => ({
        status: 'queued',
        lease_token: null,
        lease_expires_at: null,
        worker_id: null,
        attempts: eb('attempts', '-', 1),
      }));
    return this.whileLeased(query, id, token, 'created');
  }

  async heldLeases(leases: ReadonlyArray<{ id: string; token: string }>): Promise<Set<string>> {
    if (leases.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('jobs')
      .select(['id', 'lease_token'])
      .where(
        'id',
        'in',
        leases.map((l) => l.id),
      )
      .where('status', '=', 'processing')
      .execute();
    const current = new Map(rows.map((r) => [r.id, r.lease_token]));
    return new Set(leases.filter((l) => current.get(l.id) === l.token).map((l) => l.id));
  }

  async setProgress(id: string, token: string, percent: number): Promise<boolean> {
    const target = Number.isFinite(percent)
      ? Math.min(MAX_WORKER_PROGRESS, Math.max(0, Math.floor(percent)))
      : 0;
    const query = this.db
      .updateTable('jobs')
      // Never lower: a late or reordered report must not move the bar backwards (docs/api.md §2).
      .set((eb) => ({
        progress: eb.case().when('progress', '<', target).then(target).else(eb.ref('progress')).end(),
      }));
    return this.whileLeased(query, id, token, 'updated');
  }

  async setStep(id: string, token: string, step: number): Promise<boolean> {
    return this.whileLeased(this.db.updateTable('jobs').set({ current_step: step }), id, token, 'updated');
  }

  /**
   * Applies `query` only while `token` still holds the job's lease, so a worker that lost it changes
   * nothing; then sends the change notice. Returns whether it applied.
   */
  private async whileLeased(
    query: UpdateQueryBuilder<Tables, 'jobs', 'jobs', UpdateResult>,
    id: string,
    token: string,
    notice?: JobChangeNotice['kind'],
  ): Promise<boolean> {
    const result = await query
      .where('id', '=', id)
      .where('lease_token', '=', token)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    if (notice) await this.dialect.notify(this.db, { jobId: id, kind: notice });
    return true;
  }

  async complete(id: string, token: string, result: JobResult, expiresAt: number, now = Date.now()) {
    const ending = { status: 'succeeded', result, expiresAt } as const;
    return this.finish(id, token, ending, now);
  }

  async fail(id: string, token: string, error: JobError, now = Date.now()) {
    return this.finish(id, token, { status: 'failed', error }, now);
  }

  private async finish(id: string, token: string, ending: JobEnding, now: number) {
    const ended = this.messages.settle(await this.dialect.finishLeased(this.db, id, token, ending, now));
    return ended && toJob(ended);
  }

  cancel(accountId: string, id: string, now = Date.now()): Promise<CancelOutcome> {
    return cancelJob(this.db, this.dialect, this.messages, accountId, id, now);
  }

  delete(accountId: string, id: string, now = Date.now()): Promise<JobRecord | undefined> {
    return deleteJob(this.db, this.dialect, this.messages, accountId, id, now);
  }

  sweepExpiredLeases(maxStalls: number, now = Date.now()): Promise<SweepOutcome> {
    return sweepExpiredLeases(this.db, this.dialect, maxStalls, now, this.messages);
  }

  listEndedWithInputs(limit: number): Promise<JobRecord[]> {
    return listEndedWithInputs(this.db, limit);
  }

  async recordInputs(id: string, token: string, inputs: InputFile[]): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ inputs: JSON.stringify(inputs), input_bytes: inputBytes(inputs) })
      .where('id', '=', id)
      .where('lease_token', '=', token)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async markInputsDeleted(id: string): Promise<void> {
    const cleared = await markInputsDeleted(this.db, id, Date.now());
    if (cleared) await this.dialect.forgetOverwritten(this.db);
  }

  listExpiredResults(limit: number, now = Date.now()): Promise<JobRecord[]> {
    return listExpiredResults(this.db, limit, now);
  }

  markResultDeleted(id: string, now = Date.now()): Promise<void> {
    return markResultDeleted(this.db, id, now);
  }

  countByStatus(): Promise<Record<JobStatus, number>> {
    return countJobsByStatus(this.db);
  }

  accountUsage(accountId: string, since: number): Promise<AccountUsage> {
    return accountUsage(this.db, accountId, since);
  }

  listExpiredRecords(before: number, limit: number): Promise<JobRecord[]> {
    return listExpiredRecords(this.db, before, limit);
  }

  deleteRecords(ids: readonly string[]): Promise<number> {
    return deleteRecords(this.db, ids);
  }
}
