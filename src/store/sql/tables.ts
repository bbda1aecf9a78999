// Table definitions: the row shapes as Kysely sees them, the same on SQLite and PostgreSQL (the SQL
// that makes them is in the migrations of each dialect). Times are integer epoch ms (PostgreSQL bigint,
// read back as numbers); JSON columns are TEXT on both, so the bytes stored are the bytes read.
import type { Generated } from 'kysely';
import type { JobStatus } from '../../model/job.js';
import type { JobEventType } from '../../model/job-event.js';
import type { WebhookMessageStatus } from '../../model/webhook.js';

export interface AccountsTable {
  id: string;
  name: string;
  plan: string;
  created_at: number;
  last_claim_at: Generated<number | null>;
}

export interface IdempotencyKeysTable {
  account_id: string;
  method: string;
  route: string;
  key: string;
  token: string;
  state: 'in_flight' | 'completed';
  fingerprint: string | null;
  status: number | null;
  headers: string | null;
  body: Buffer | null;
  created_at: number;
  locked_until: number;
  expires_at: number;
}

export interface RateLimitsTable {
  bucket: string;
  tat: number;
  allowed: number;
}

export interface ApiKeysTable {
  id: string;
  key_id: string;
  account_id: string;
  name: string;
  secret_hash: string;
  scopes: string;
  mode: 'live' | 'test';
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export interface JobsTable {
  id: string;
  account_id: string;
  tool: string;
  options: string;
  secret_options: string;
  metadata: string;
  inputs: string;
  status: JobStatus;
  progress: number;
  result: string | null;
  error: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  expires_at: number | null;
  result_deleted_at: number | null;
  inputs_deleted_at: number | null;
  deleted_at: number | null;
  lease_token: string | null;
  lease_expires_at: number | null;
  worker_id: string | null;
  stalls: number;
  attempts: number;
  next_steps: string;
  current_step: number | null;
  batch_id: Generated<string | null>;
  /** JSON JobTransfers (hosts only); null when the job has none. */
  transfers: Generated<string | null>;
  /** JSON JobTransferSecrets; null once the job has ended. */
  transfer_secrets: Generated<string | null>;
  webhook_url: Generated<string | null>;
  /** JSON JobRecipe: the recipe version the job runs; null when it names none. */
  recipe: Generated<string | null>;
  /** Sum of the inputs' sizes, kept after they are deleted (the quota reads inputs_deleted_at). */
  input_bytes: Generated<number>;
  /** The result's size; 0 until the job succeeds. */
  result_bytes: Generated<number>;
}

export interface BatchesTable {
  id: string;
  account_id: string;
  tool: string;
  job_count: number;
  created_at: number;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  description: string;
  events: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
  /** `job_callback`: the account's hidden endpoint that signs per-job webhook_url deliveries. */
  kind: Generated<'endpoint' | 'job_callback'>;
}

export interface WebhookEventsTable {
  id: Generated<number>;
  account_id: string;
  job_id: string;
  type: JobEventType;
  /** The signed bytes; null until first sent when the event was written with `job_state`. */
  body: Buffer | null;
  /** The job row as JSON (secrets redacted, no lease) when the body is yet to be rendered. */
  job_state: string | null;
  created_at: number;
}

export interface WebhookMessagesTable {
  id: string;
  event_id: number;
  endpoint_id: string;
  account_id: string;
  status: WebhookMessageStatus;
  attempts: number;
  next_attempt_at: number | null;
  lease_token: string | null;
  lease_expires_at: number | null;
  created_at: number;
  completed_at: number | null;
  /** A job's own webhook_url, sent instead of the endpoint's URL (job_callback endpoints). */
  url: Generated<string | null>;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  message_id: string;
  attempted_at: number;
  status_code: number | null;
  latency_ms: number;
  error_class: string | null;
  response_excerpt: string | null;
}

export interface RecipesTable {
  id: string;
  account_id: string;
  name: string;
  latest_version: number;
  created_at: number;
}

export interface RecipeVersionsTable {
  recipe_id: string;
  version: number;
  /** JSON JobStep[], as validated when the version was made. */
  steps: string;
  created_at: number;
}

export interface UploadsTable {
  id: string;
  account_id: string;
  length: number;
  created_at: number;
  expires_at: number;
  finished_at: number | null;
}

export interface MigrationsTable {
  id: number;
  name: string;
  applied_at: number;
}

export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  jobs: JobsTable;
  batches: BatchesTable;
  recipes: RecipesTable;
  recipe_versions: RecipeVersionsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limits: RateLimitsTable;
  uploads: UploadsTable;
  quire_migrations: MigrationsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_attempts: WebhookAttemptsTable;
}
