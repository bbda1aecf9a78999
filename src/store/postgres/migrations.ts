// PostgreSQL schema history: numbered, forward-only migrations, each in its own transaction, applied
// by whichever process starts first while the others wait on an advisory lock. Migration 1 is the
// SQLite schema after its migrations 1–4, in PostgreSQL types: times are bigint epoch ms, JSON is
// text (the bytes stored are the bytes read, as on SQLite), bodies are bytea. It adds what lets a
// claim or a completion be one statement here (postgres/job-claim.ts, postgres/job-finish.ts): a
// per-account running count kept by a trigger, and message ids made in SQL. Never edit a released
// migration; add the next number instead.
import { type Kysely, sql } from 'kysely';
import type { Migration } from '../sql/dialect.js';
import type { Tables } from '../sql/rows.js';
import { eventWriterMigration } from './event-writer-migration.js';
import { quotaMigration } from './quota-migration.js';
import { recipesMigration } from './recipes-migration.js';

export const migrations: readonly Migration[] = [
  {
    id: 1,
    name: 'accounts, keys, jobs, idempotency, rate limits, webhooks',
    statements: [
      `CREATE TABLE accounts (
        id text PRIMARY KEY,
        name text NOT NULL,
        plan text NOT NULL,
        created_at bigint NOT NULL,
        last_claim_at bigint,
        -- The account's jobs in status processing, kept by jobs_count_running below. The claim reads
        -- it on the account row it has locked, so a limit check always sees every committed claim.
        running integer NOT NULL DEFAULT 0 CHECK (running >= 0)
      )`,
      `CREATE TABLE api_keys (
        id text PRIMARY KEY,
        key_id text NOT NULL UNIQUE,
        account_id text NOT NULL REFERENCES accounts (id),
        name text NOT NULL,
        secret_hash text NOT NULL,
        scopes text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        created_at bigint NOT NULL,
        expires_at bigint,
        revoked_at bigint
      )`,
      'CREATE INDEX api_keys_account ON api_keys (account_id, created_at)',
      `CREATE TABLE jobs (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        tool text NOT NULL,
        options text NOT NULL,
        secret_options text NOT NULL,
        metadata text NOT NULL,
        inputs text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'processing', 'succeeded', 'failed', 'canceled')),
        progress integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
        result text,
        error text,
        created_at bigint NOT NULL,
        started_at bigint,
        completed_at bigint,
        expires_at bigint,
        result_deleted_at bigint,
        inputs_deleted_at bigint,
        deleted_at bigint,
        lease_token text,
        lease_expires_at bigint,
        worker_id text,
        stalls integer NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0
      )`,
      // The same indexes as SQLite's, for the same queries (see sqlite/migrations.ts).
      "CREATE INDEX jobs_queue_account ON jobs (account_id, created_at, id) WHERE status = 'queued'",
      'CREATE INDEX jobs_account_created ON jobs (account_id, created_at DESC, id DESC)',
      'CREATE INDEX jobs_account_status ON jobs (account_id, status, created_at DESC, id DESC)',
      'CREATE INDEX jobs_account_tool ON jobs (account_id, tool, created_at DESC, id DESC)',
      "CREATE INDEX jobs_lease_expiry ON jobs (lease_expires_at) WHERE status = 'processing'",
      // Every way into or out of processing (claim, complete, fail, cancel, requeue, release) is an
      // UPDATE of status, so a trigger keeps accounts.running exact without each writer having to.
      `CREATE FUNCTION quire_count_running() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        delta integer := 0;
        account text;
      BEGIN
        -- NEW is unset on DELETE and OLD on INSERT: test the operation before reading either.
        IF TG_OP <> 'DELETE' THEN
          account := NEW.account_id;
          IF NEW.status = 'processing' THEN delta := delta + 1; END IF;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          account := OLD.account_id;
          IF OLD.status = 'processing' THEN delta := delta - 1; END IF;
        END IF;
        IF delta <> 0 THEN
          UPDATE accounts SET running = running + delta WHERE id = account;
        END IF;
        RETURN NULL;
      END $$`,
      `CREATE TRIGGER jobs_count_running AFTER INSERT OR DELETE OR UPDATE OF status ON jobs
        FOR EACH ROW EXECUTE FUNCTION quire_count_running()`,
      `CREATE INDEX jobs_result_expiry ON jobs (expires_at)
        WHERE status = 'succeeded' AND result_deleted_at IS NULL`,
      `CREATE INDEX jobs_deleted_results ON jobs (deleted_at)
        WHERE deleted_at IS NOT NULL AND result IS NOT NULL AND result_deleted_at IS NULL`,
      `CREATE INDEX jobs_inputs_pending ON jobs (completed_at)
        WHERE inputs_deleted_at IS NULL AND status IN ('succeeded', 'failed', 'canceled')`,
      `CREATE TABLE idempotency_keys (
        account_id text NOT NULL REFERENCES accounts (id),
        method text NOT NULL,
        route text NOT NULL,
        key text NOT NULL,
        token text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_flight', 'completed')),
        fingerprint text,
        status integer,
        headers text,
        body bytea,
        created_at bigint NOT NULL,
        locked_until bigint NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (account_id, method, route, key)
      )`,
      'CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)',
      `CREATE TABLE rate_limits (
        bucket text PRIMARY KEY,
        tat double precision NOT NULL,
        allowed boolean NOT NULL
      )`,
      'CREATE INDEX rate_limits_tat ON rate_limits (tat)',
      `CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        url text NOT NULL,
        description text NOT NULL,
        events text NOT NULL,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at bigint,
        status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
        disabled_reason text,
        failing_since bigint,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      )`,
      'CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at)',
      // An event written by a one-statement transition carries the job's state instead of a body; the
      // body is rendered from it on the first delivery and stored (sql/job-outbox.ts).
      `CREATE TABLE webhook_events (
        id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        job_id text NOT NULL,
        type text NOT NULL,
        body bytea,
        job_state text,
        created_at bigint NOT NULL,
        CHECK (body IS NOT NULL OR job_state IS NOT NULL)
      )`,
      'CREATE INDEX webhook_events_job ON webhook_events (job_id, id)',
      'CREATE INDEX webhook_events_created ON webhook_events (created_at)',
      `CREATE TABLE webhook_messages (
        id text PRIMARY KEY,
        event_id bigint NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
        endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        account_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at bigint,
        lease_token text,
        lease_expires_at bigint,
        created_at bigint NOT NULL,
        completed_at bigint
      )`,
      "CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE status = 'pending'",
      'CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, created_at DESC, id DESC)',
      'CREATE INDEX webhook_messages_event ON webhook_messages (event_id, status)',
      `CREATE TABLE webhook_attempts (
        id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        message_id text NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
        attempted_at bigint NOT NULL,
        status_code integer,
        latency_ms integer NOT NULL,
        error_class text,
        response_excerpt text
      )`,
      'CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id, id)',
      // msg_ ids for messages fanned out inside a statement: a ULID (48-bit time in ms, 80 random
      // bits, Crockford base32) as the ulid package makes in TypeScript. The random bits are a v4
      // UUID's, skipping its fixed version and variant bits.
      `CREATE FUNCTION quire_ulid(ms bigint) RETURNS text LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
        WITH r AS (SELECT ('x' || replace(gen_random_uuid()::text, '-', ''))::bit(128) AS u),
        b AS (SELECT B'00' || ms::bit(48) || substring(u FROM 1 FOR 48) || substring(u FROM 67 FOR 32) AS v
              FROM r)
        SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
                                 substring(v FROM 5 * i + 1 FOR 5)::integer + 1, 1), '' ORDER BY i)
        FROM b, generate_series(0, 25) AS i
      $$`,
    ],
  },
  {
    id: 2,
    name: 'job steps: the steps after the first, and the step running',
    statements: [
      // JSON array of {tool, options}; every job made before steps existed has one step, its tool.
      "ALTER TABLE jobs ADD COLUMN next_steps text NOT NULL DEFAULT '[]'",
      // Written by the lease holder as it moves through the steps; read for the job view only.
      'ALTER TABLE jobs ADD COLUMN current_step integer',
    ],
  },
  {
    // Workflows I/O (issue 15): batches, URL imports, exports and per-job webhook URLs.
    id: 3,
    name: 'workflows io: batches, transfers, job webhook urls',
    statements: [
      'ALTER TABLE jobs ADD COLUMN batch_id text',
      // Hosts only (the job view's source of truth for transfers); kept for the job's life.
      'ALTER TABLE jobs ADD COLUMN transfers text',
      // Full URLs and headers: set to NULL with the inputs when the job ends (markInputsDeleted).
      'ALTER TABLE jobs ADD COLUMN transfer_secrets text',
      'ALTER TABLE jobs ADD COLUMN webhook_url text',
      // A batch's jobs for its counts, cancel and ZIP; most jobs have no batch, so partial.
      'CREATE INDEX jobs_batch ON jobs (batch_id, created_at, id) WHERE batch_id IS NOT NULL',
      `CREATE TABLE batches (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        tool text NOT NULL,
        job_count integer NOT NULL,
        created_at bigint NOT NULL
      )`,
      `ALTER TABLE webhook_endpoints ADD COLUMN kind text NOT NULL DEFAULT 'endpoint'
        CHECK (kind IN ('endpoint', 'job_callback'))`,
      // One job-callback endpoint per account: two first uses at once insert one row.
      `CREATE UNIQUE INDEX webhook_endpoints_job_callback ON webhook_endpoints (account_id)
        WHERE kind = 'job_callback'`,
      // A job's own webhook_url, sent instead of the endpoint's URL.
      'ALTER TABLE webhook_messages ADD COLUMN url text',
    ],
  },
  {
    id: 4,
    name: 'resumable uploads (tus): the owner, length and expiry of each upload',
    statements: [
      // As SQLite migration 7: the bytes and offset live in the tus data store, this row says who
      // owns the upload, how long it may be and until when it is kept.
      `CREATE TABLE uploads (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        length bigint NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        finished_at bigint
      )`,
      'CREATE INDEX uploads_expiry ON uploads (expires_at)',
    ],
  },
  eventWriterMigration,
  quotaMigration,
  recipesMigration,
];

/** One fixed key for pg_advisory_lock: every Quire process migrating this database takes it. */
const MIGRATION_LOCK = 0x5155_4952; // "QUIR"

/**
 * Applies pending migrations. The session-level advisory lock makes a process that starts at the
 * same moment wait, then find the work recorded; each migration and its record commit together
 * (PostgreSQL DDL is transactional), so a failed one leaves the schema as it was.
 */
export async function runMigrations(db: Kysely<Tables>, now = Date.now()): Promise<number[]> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      await sql`create table if not exists quire_migrations (
        id integer PRIMARY KEY,
        name text NOT NULL,
        applied_at bigint NOT NULL
      )`.execute(conn);
      const done = new Set(
        (await conn.selectFrom('quire_migrations').select('id').execute()).map((r) => r.id),
      );
      const applied: number[] = [];
      for (const migration of migrations) {
        if (done.has(migration.id)) continue;
        await sql`begin`.execute(conn);
        try {
          // One round trip: a query without parameters may hold several statements.
          await sql.raw(migration.statements.join(';\n')).execute(conn);
          await conn
            .insertInto('quire_migrations')
            .values({ id: migration.id, name: migration.name, applied_at: now })
            .execute();
          await sql`commit`.execute(conn);
        } catch (error) {
          await sql`rollback`.execute(conn).catch(() => undefined);
          throw error;
        }
        applied.push(migration.id);
      }
      return applied;
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}
