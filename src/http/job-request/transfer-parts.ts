// The transfer parts of a job request (docs/api.md §2, "Import, export and callbacks"): `file_url`
// (repeatable, in order among the `file` parts), `export` and `webhook_url`. Each is checked as it
// arrives; URLs and headers are kept apart from the public job as secrets.
import { createHash } from 'node:crypto';
import { QuireError } from '../../errors/quire-error.js';
import type { InputFile, JobTransferSecrets, JobTransfers, TransferTarget } from '../../model/job.js';
import { urlRefusal } from '../../outbound/address-guard.js';
import { MAX_TRANSFER_HEADERS, MAX_URL_LENGTH } from './limits.js';
import { tooManyFiles } from './refusals.js';

export const TRANSFER_PARTS = ['file_url', 'export', 'webhook_url'];

/** What a job request's transfer parts amount to, ready for NewJob. */
export interface ReceivedTransfers {
  transfers: JobTransfers;
  secrets: JobTransferSecrets;
  webhookUrl: string | undefined;
}

/** The spec's half of a request's transfer parts: `export` and `webhook_url`. */
interface TransferSpec {
  readonly transfers: TransferParts;
}

/** The inputs' half: a `file_url` takes the next input's place. */
interface TransferInputs {
  readonly inputs: InputFile[];
  readonly sha256: string[];
  readonly imports: TransferParts;
}

/** A `file_url`, `export` or `webhook_url` part: the first adds an input, the others go to the spec. */
export async function readTransferPart(
  name: string,
  text: string,
  spec: TransferSpec,
  received: TransferInputs,
  folder: string,
  limits: { maxFiles: number; plan: string; allowPrivateWebhooks?: boolean },
): Promise<void> {
  if (name !== 'file_url') {
    await spec.transfers.read(name, text, 0, limits.allowPrivateWebhooks ?? false);
    return;
  }
  const index = received.inputs.length;
  if (index >= limits.maxFiles) throw tooManyFiles(limits.maxFiles, limits.plan);
  const input = (await received.imports.read(name, text, index, false))!;
  received.inputs.push({ ...input, blobKey: `${folder}/input-${index}` });
  // In the fingerprint's file list, in order: the URL stands for bytes not yet fetched.
  received.sha256.push(`url:${createHash('sha256').update(text).digest('hex')}`);
}

/** Headers a client may not set: they describe the connection or the body, which the worker owns. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'expect']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export class TransferParts {
  readonly imports: Array<TransferTarget & { input: number }> = [];
  exportTarget: (TransferTarget & { keepResult: boolean }) | undefined;
  webhookUrl: string | undefined;
  private readonly seen = new Set<string>();

  /**
   * Reads one part. A `file_url` becomes input `inputs.length`: a placeholder the worker fills in,
   * pushed by the caller after its count is checked. `allowPrivateWebhooks` is the webhook setting,
   * since the dispatcher, which delivers webhook_url events, applies it.
   */
  async read(
    name: string,
    value: string,
    inputIndex: number,
    allowPrivateWebhooks: boolean,
  ): Promise<InputFile | undefined> {
    if (name === 'file_url') {
      const target = parseTarget(value, name);
      this.imports.push({ ...target, input: inputIndex });
      // A neutral name, not the URL's last segment: a link's path often names a person or a case
      // (`/payroll/jane-doe.pdf`), and the job view and result name are shown to anyone with the key.
      return { name: `file-${inputIndex + 1}`, size: 0, contentType: '', blobKey: '', source: 'url' };
    }
    if (this.seen.has(name)) throw invalid(name, 'appears twice');
    this.seen.add(name);
    if (name === 'export') {
      const target = parseTarget(value, name);
      const keep = (JSON.parse(value.trim().startsWith('{') ? value : '{}') as { keep_result?: unknown })
        .keep_result;
      if (keep !== undefined && typeof keep !== 'boolean')
        throw invalid(name, 'keep_result must be a boolean');
      this.exportTarget = { ...target, keepResult: keep !== false };
      return undefined;
    }
    const refusal =
      value.length > MAX_URL_LENGTH ? 'is too long' : await urlRefusal(value, allowPrivateWebhooks);
    if (refusal) {
      throw new QuireError('webhook_url_not_allowed', `The webhook_url ${refusal}.`, {
        errors: [{ field: 'webhook_url', detail: refusal }],
      });
    }
    this.webhookUrl = value;
    return undefined;
  }

  /** One job's links: the imports of its own inputs, and the export and webhook of its spec. */
  static joined(spec: TransferParts, imports: TransferParts): TransferParts {
    const joined = new TransferParts();
    joined.imports.push(...imports.imports);
    joined.exportTarget = spec.exportTarget;
    joined.webhookUrl = spec.webhookUrl;
    return joined;
  }

  result(): ReceivedTransfers {
    const host = (url: string) => new URL(url).host;
    return {
      transfers: {
        imports: this.imports.map((i) => ({ input: i.input, host: host(i.url) })),
        export: this.exportTarget
          ? { host: host(this.exportTarget.url), keepResult: this.exportTarget.keepResult }
          : null,
        webhookHost: this.webhookUrl ? host(this.webhookUrl) : null,
      },
      secrets: {
        imports: this.imports,
        export: this.exportTarget ? { url: this.exportTarget.url, headers: this.exportTarget.headers } : null,
      },
      webhookUrl: this.webhookUrl,
    };
  }

  /** For the Idempotency-Key fingerprint: a digest, so the stored fingerprint holds no URL. */
  fingerprint(): string {
    return createHash('sha256')
      .update(JSON.stringify([this.imports, this.exportTarget ?? null, this.webhookUrl ?? null]))
      .digest('hex');
  }
}

/** A plain URL, or JSON `{"url": "...", "headers": {...}}` for links that need headers. */
function parseTarget(value: string, field: string): TransferTarget {
  const trimmed = value.trim();
  let url: unknown = trimmed;
  let headers: unknown = {};
  if (trimmed.startsWith('{')) {
    let parsed: { url?: unknown; headers?: unknown };
    try {
      parsed = JSON.parse(trimmed) as typeof parsed;
    } catch {
      throw invalid(field, 'is neither a URL nor valid JSON');
    }
    url = parsed.url;
    headers = parsed.headers ?? {};
  }
  if (typeof url !== 'string' || url.length > MAX_URL_LENGTH) throw invalid(field, 'needs a url');
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    throw invalid(field, 'is not an absolute URL');
  }
  if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:')
    throw invalid(field, 'must use http or https');
  return { url: parsedUrl.href, headers: checkHeaders(headers, field) };
}

function checkHeaders(headers: unknown, field: string): Record<string, string> {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers))
    throw invalid(field, 'headers must be an object of strings');
  const entries = Object.entries(headers as Record<string, unknown>);
  if (entries.length > MAX_TRANSFER_HEADERS) throw invalid(field, `at most ${MAX_TRANSFER_HEADERS} headers`);
  for (const [name, value] of entries) {
    if (!TOKEN.test(name) || RESERVED_HEADERS.has(name.toLowerCase()))
      throw invalid(field, `header "${name}" may not be set`);
    if (typeof value !== 'string' || /[\r\n\0]/.test(value))
      throw invalid(field, `header "${name}" must be a single-line string`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

function invalid(field: string, detail: string): QuireError {
  return new QuireError('invalid_request', `The "${field}" part ${detail}.`, {
    errors: [{ field, detail }],
  });
}
