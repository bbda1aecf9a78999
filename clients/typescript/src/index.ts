// @quire/client: the TypeScript SDK of the Quire PDF API (docs/clients.md).
export type { Batch, CreateBatchParams } from './batches.js';
export { Quire, type QuireOptions, type RunOptions } from './client.js';
export type { DownloadOptions, DownloadResult } from './download.js';
export { type ErrorCode, type FieldError, type Problem, QuireError } from './errors.js';
export type { components, operations, paths } from './generated/schema.js';
export type { InputSource, UrlInput } from './inputs.js';
export type { CreateJobParams, ExportTarget, Job, JobList, JobSpec } from './jobs.js';
export type { ListRecipesQuery, Recipe, RecipeList } from './recipes.js';
export type { Tool, ToolList } from './resources.js';
export type { RunDownload, RunParams, RunStream } from './run.js';
export type { AnyToolName, Step, ToolName, ToolOptions } from './tool-options.js';
export type { RateLimitState, RetryPolicy } from './transport.js';
export { DEFAULT_TUS_THRESHOLD, type Upload, type UploadProgress } from './uploads.js';
export type { JobProgress, WaitOptions } from './wait.js';
export { verifyWebhook, type WebhookEvent } from './webhook-verify.js';
