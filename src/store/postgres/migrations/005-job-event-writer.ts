// PostgreSQL migration 5: the function that writes a job event and its webhook messages (postgres/outbox.ts).
// Never edit it once released; add the next migration instead.
import type { Migration } from '../../sql/dialect.js';

export const jobEventWriter: Migration = {
  id: 5,
  name: 'job events written by a function, only when an endpoint receives them',
  statements: [
    // Called from a transition's own statement only when the job's account has a receiver. As CTEs
    // of that statement, the two INSERTs were set up on every claim and completion (relations,
    // indexes, locks) though most accounts have no endpoint; here PL/pgSQL plans them once per
    // connection and runs them only when called. The statement resolves the receivers (`targets`:
    // [{endpoint, url}]); the function reads no table, so its own snapshots change nothing.
    `CREATE FUNCTION quire_job_event(for_account text, for_job text, event_type text, event_body bytea,
        state text, at bigint, targets jsonb) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        new_event bigint;
        queued integer;
      BEGIN
        INSERT INTO webhook_events (account_id, job_id, type, body, job_state, created_at)
        VALUES (for_account, for_job, event_type, event_body, state, at)
        RETURNING id INTO new_event;
        -- The schedule's first delay is 0 (config enforces it): due at once.
        INSERT INTO webhook_messages (id, event_id, endpoint_id, account_id, status, attempts,
                                      next_attempt_at, created_at, url)
        SELECT 'msg_' || quire_ulid(at), new_event, t.value ->> 'endpoint', for_account, 'pending', 0,
               at, at, t.value ->> 'url'
        FROM jsonb_array_elements(targets) AS t;
        GET DIAGNOSTICS queued = ROW_COUNT;
        RETURN queued;
      END $$`,
  ],
};
