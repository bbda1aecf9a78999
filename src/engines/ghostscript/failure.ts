// Maps a finished Ghostscript run (exit status + stderr tail) to a named QuireError. The only place
// that sniffs Ghostscript's messages; each pattern names the case it recognises.
import { QuireError } from '../../errors/quire-error.js';
import { type RunResult, throwIfLimitHit } from '../../process/runner.js';
import { describeExit } from '../program.js';

/** Ghostscript's message for an encrypted input it was not given a password for. */
const GS_NEEDS_PASSWORD = /requires a password for access/i;
/**
 * Ghostscript cannot parse the input: it prints `Couldn't initialise file` and then processes no
 * pages, yet may exit 0 with a blank output (measured, tools.md), so this is checked on success too.
 */
const GS_UNREADABLE =
  /Couldn't initialise file|No pages will be processed|Unrecoverable error|not a PDF|Error: \/syntaxerror/i;

export function ghostscriptFailure(result: RunResult): QuireError | undefined {
  throwIfLimitHit(result);
  if (GS_NEEDS_PASSWORD.test(result.stderrTail)) return new QuireError('pdf_encrypted');
  if (GS_UNREADABLE.test(result.stderrTail)) return new QuireError('pdf_corrupt');
  if (result.exitCode === 0) return undefined;
  return new QuireError('engine_failed', describeExit('Ghostscript', result));
}
