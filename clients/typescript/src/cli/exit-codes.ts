// quirectl's exit codes (README "Command line"): scripts tell bad input, a failed job and trouble
// reaching the server apart without parsing messages.
import { QuireError } from '../errors.js';

export const EXIT = { ok: 0, badInput: 2, jobFailed: 3, serverTrouble: 4 } as const;

/** Bad input and usage errors. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.badInput;
  if (error instanceof QuireError) {
    if (error.job !== undefined) return EXIT.jobFailed;
    // No answer, the server's own trouble, or limits still hit after the retries.
    if (error.status === 0 || error.status >= 500 || error.status === 429) return EXIT.serverTrouble;
    return EXIT.badInput;
  }
  // A file that cannot be read, a directory that cannot be written: the caller's input.
  if (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('E')
  )
    return EXIT.badInput;
  return EXIT.serverTrouble;
}

/** One line for people; never a stack. */
export function describe(error: unknown): string {
  if (error instanceof QuireError) {
    const where = error.errors.map((e) => `  ${e.pointer ?? e.field ?? ''}: ${e.detail}`).join('\n');
    const id = error.requestId ? ` (request ${error.requestId})` : '';
    return `error: ${error.code}: ${error.detail}${id}${where ? `\n${where}` : ''}`;
  }
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}
