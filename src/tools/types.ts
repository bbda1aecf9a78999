// The declarative shape every tool file exports; the catalogue, validation and OpenAPI derive from it.
import type { Static, TObject } from '@sinclair/typebox';
import type { Engines } from '../engines/index.js';
import type { EngineName } from '../engines/types.js';
import type { FieldError } from '../errors/quire-error.js';
import type { ProgressReporter } from '../jobs/progress.js';

export type InputType =
  | 'application/pdf'
  | 'image/jpeg'
  | 'image/png'
  | 'image/tiff'
  | 'image/webp'
  | 'image/gif'
  // Office documents (office-to-pdf); x-ole-storage is a doc/xls/ppt whose kind the head does not show.
  | 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  | 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
  | 'application/vnd.openxmlformats-officedocument.presentationml.presentation'
  | 'application/vnd.oasis.opendocument.text'
  | 'application/vnd.oasis.opendocument.spreadsheet'
  | 'application/vnd.oasis.opendocument.presentation'
  | 'application/msword'
  | 'application/vnd.ms-excel'
  | 'application/vnd.ms-powerpoint'
  | 'application/x-ole-storage'
  | 'application/rtf'
  | 'text/plain'
  | 'text/csv'
  // html-to-pdf: one page, or a ZIP of a page with its assets.
  | 'text/html'
  | 'application/zip';

/** One input file as the tool sees it: a private copy on local disk inside the job's work directory. */
export interface ToolInput {
  path: string;
  /** Client-supplied file name; display only, never used to build a path. */
  name: string;
  size: number;
  contentType: InputType;
}

export interface ToolLimits {
  maxPages: number;
  timeoutMs: number;
  memoryBytes: number;
}

export interface ToolContext<O> {
  options: O;
  inputs: ToolInput[];
  /** A private directory for this job, removed after the job; write outputs here. */
  workDir: string;
  signal: AbortSignal;
  progress: ProgressReporter;
  engines: Engines;
  limits: ToolLimits;
}

export interface ToolOutput {
  /** A file inside `workDir`. */
  path: string;
  /** Download file name, e.g. `report-compressed.pdf`. */
  name: string;
  contentType: string;
  /** Tool-specific facts merged into `job.result` (e.g. compress: `input_size`, `ratio`). */
  facts?: Record<string, unknown>;
}

export interface ToolDefinition<S extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  inputs: {
    minFiles: number;
    /** `'plan'` means the calling account's plan decides (e.g. merge). */
    maxFiles: number | 'plan';
    accepts: readonly InputType[];
  };
  /** JSON Schema (TypeBox) of the options; `additionalProperties: false` always. */
  options: S;
  /** Option names whose values are secrets: redacted on the job and never logged. */
  secretOptions?: readonly string[];
  output: { contentType: string };
  engines: readonly EngineName[];
  /** Named steps and their share of the progress bar; they must sum to 100. */
  steps?: Readonly<Record<string, number>>;
  /**
   * Checks that need more than the options schema (e.g. at most one page selection per input
   * file); run once the upload is complete, before the job exists. Pointers are under `/options`.
   */
  checkRequest?(options: Static<S>, fileCount: number): FieldError[];
  run(ctx: ToolContext<Static<S>>): Promise<ToolOutput>;
}

/** Erases the options type so heterogenous tools can live in one list. */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of every options type
export type AnyToolDefinition = ToolDefinition<any>;

export function defineTool<S extends TObject>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}
