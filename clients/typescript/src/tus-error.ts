// tus-js-client's failures as QuireError, shared by the Node and browser uploads: the server's problem
// when it answered, never tus-js-client's own message (it carries the request's URL and headers).
import type * as tus from 'tus-js-client';
import { QuireError } from './errors.js';

/** tus-js-client's error, as a QuireError with the server's problem when there was an answer. */
export function tusError(error: Error | tus.DetailedError): QuireError {
  const response = 'originalResponse' in error ? error.originalResponse : null;
  let problem: { code?: string; detail?: string; title?: string; request_id?: string } = {};
  try {
    problem = JSON.parse(response?.getBody() ?? '');
  } catch {
    problem = {};
  }
  const status = response?.getStatus() ?? 0;
  // tus-js-client puts the request URL and headers in its message; keep only the server's words.
  return new QuireError({
    status,
    code: problem.code ?? (status === 0 ? 'network_error' : `http_${status}`),
    title: problem.title ?? 'Upload failed',
    detail: problem.detail ?? 'The resumable upload failed.',
    retryable: status === 0 || status >= 500 || status === 429,
    requestId: problem.request_id,
    problem: problem as Record<string, unknown>,
  });
}
