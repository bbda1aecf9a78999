// A job request as it is read, in two halves kept apart: the spec (what to run: the job's form —
// tool and options, steps or recipe — its metadata, and where the result and its end go), which a
// batch shares between its jobs, and the inputs received (one job's files, URLs and upload ids in
// order, with the stores still in flight). `finish.ts` checks them together into a ReceivedJob.
import { displayFileName } from '../../model/file-name.js';
import type { InputFile, JobRecipe, JobStep } from '../../model/job.js';
import type { CatalogEntry } from '../../tools/framework/catalog.js';
import type { UploadTake } from '../../uploads/uploads.js';
import { type ReceivedTransfers, TransferParts } from './transfer-parts.js';

/** What a request asks for, checked: the first tool and its options, the steps after, metadata. */
export interface JobSpec {
  entry: CatalogEntry;
  options: Record<string, unknown>;
  metadata: Record<string, string>;
  /** With a `steps` part: the steps after the first (`entry`, `options`). */
  nextSteps?: JobStep[];
  /** With a `recipe` part: the version it named, and the part as sent (for the fingerprint). */
  recipe?: JobRecipe;
  recipeRef?: string;
}

/** What a request brought for one job, in input order (`file`, `file_url` and `upload_id` parts). */
export interface JobInputs {
  inputs: InputFile[];
  /**
   * SHA-256 (hex) of each input, in order, computed while storing (the Idempotency-Key fingerprint);
   * empty strings for uploaded files when the request has no key, as nothing compares them then.
   */
  sha256: string[];
  /** `upload_id` parts: taken only when the job is stored (upload-id-part.ts). */
  uploadTakes: UploadTake[];
  /** The job's links: its imports, joined with the spec's `export` and `webhook_url`. */
  transfers: ReceivedTransfers;
  /** Digest of the transfer parts, for the Idempotency-Key fingerprint. */
  transfersFingerprint: string;
}

/** One job as its request describes it. */
export type ReceivedJob = JobSpec & JobInputs;

/** The spec while its parts arrive; a batch reads one for all its jobs. */
export class SpecSoFar {
  /** The text parts read so far: each may come once, and some forms exclude others. */
  readonly seen = new Set<string>();
  entry: CatalogEntry | undefined;
  rawOptions: unknown;
  options: Record<string, unknown> | undefined;
  metadata: Record<string, string> = {};
  nextSteps: JobStep[] | undefined;
  recipe: JobRecipe | undefined;
  recipeRef: string | undefined;
  /** `export` and `webhook_url`. */
  readonly transfers = new TransferParts();
}

/** One job's inputs while they arrive; a batch has one per item part. */
export class InputsSoFar {
  readonly inputs: InputFile[] = [];
  readonly sha256: string[] = [];
  /** Bytes of the request's inputs so far, which every file's guard adds to. */
  totalBytes = 0;
  /** The uploads to take when the job commits, in the order of their parts. */
  readonly uploadTakes: UploadTake[] = [];
  /** `file_url` parts. */
  readonly imports = new TransferParts();
  /**
   * Files whose bytes are all read but whose last write, close and rename may still be in flight:
   * the next part is read meanwhile, and `stored()` waits for them before the job can exist.
   */
  readonly storing: Promise<void>[] = [];
  /** The first of those that failed, so the next file is refused at once instead of at the end. */
  failure: unknown;

  /** `hashFiles`: compute each file's SHA-256, which only an Idempotency-Key's fingerprint uses. */
  constructor(readonly hashFiles = true) {}

  /** Every file of this job stored; rejects with the first failure. */
  async stored(): Promise<void> {
    await Promise.all(this.storing);
  }

  /** Every store settled, failed or not: before a failed request's files are deleted. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.storing);
  }
}

/** An input's display name only: path parts and hidden characters removed, length capped. */
export function cleanFileName(given: string | undefined, index: number): string {
  return displayFileName(given, `file-${index + 1}`);
}
