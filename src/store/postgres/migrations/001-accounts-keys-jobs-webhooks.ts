// PostgreSQL migration 1: the SQLite schema after its migrations 1–4, in PostgreSQL types: times are bigint
// epoch ms, JSON is text (the bytes stored are the bytes read, as on SQLite), bodies are bytea. It adds what
// lets a claim or a completion be one statement here (postgres/job-claim.ts, postgres/job-finish.ts): a
// per-account running count kept by a trigger, and message ids made in SQL. Never edit it once released; add
// the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const accountsKeysJobsWebhooks: Migration = {
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
    // The same indexes as SQLite's, for the same queries (see sqlite/migrations/001-accounts-keys-jobs.ts).
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
};
