// The one error type thrown across modules: a catalogue code plus a public detail and safe extras.
import { type ErrorCode, errorCatalogue } from './catalogue.js';

export interface FieldError {
  /** RFC 6901 JSON pointer into the offending document, e.g. `/options/level`. */
  pointer?: string;
  /** A named request part or header when there is no document to point into. */
  field?: string;
  detail: string;
}

export class QuireError extends Error {
  readonly code: ErrorCode;
  /** Public, client-safe explanation. Never file content, paths, passwords or engine output. */
  readonly detail: string;
  /** Extra public members of the problem document (e.g. `limit_bytes`, `required_scope`). */
  readonly extras: Record<string, unknown>;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail?: string,
    options: {
      extras?: Record<string, unknown>;
      errors?: FieldError[];
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(
      detail ?? errorCatalogue[code].title,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'QuireError';
    this.code = code;
    this.detail = detail ?? errorCatalogue[code].title;
    this.extras = options.extras ?? {};
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return errorCatalogue[this.code].status;
  }

  get retryable(): boolean {
    return errorCatalogue[this.code].retryable;
  }
}

export function isQuireError(value: unknown): value is QuireError {
  return value instanceof QuireError;
}
