// The refusals several part readers of a job request give alike (docs/api.md §2, "File counts" and
// "Content sniffing"): a `file`, `file_url` and `upload_id` part each take an input's place.
import { QuireError } from '../../errors/quire-error.js';

/** More inputs than the tool and the plan allow; `headers` when it is refused mid-body. */
export function tooManyFiles(maxFiles: number, plan: string, headers?: Record<string, string>): QuireError {
  return new QuireError('too_many_files', `At most ${maxFiles} file(s) per job for this tool and plan.`, {
    extras: { max_files: maxFiles, plan },
    ...(headers ? { headers } : {}),
  });
}

/** Sniffed content the tool does not take (any PDF or image while the tool is not known yet). */
export function unsupportedContent(accepts: readonly string[] | undefined, index: number): QuireError {
  const types = (accepts ?? []).join(', ') || 'PDF or image';
  return new QuireError(
    'unsupported_file',
    `Input ${index + 1} (counting file, file_url and upload_id parts from 1) is not of an accepted type (${types}).`,
    {
      extras: { ...(accepts ? { accepts } : {}), input_index: index },
      errors: [{ field: 'file', detail: `input ${index + 1} is not of an accepted type` }],
    },
  );
}
