// Maps a finished poppler-utils run (exit status + stderr tail) to a named QuireError. The only place
// that sniffs poppler's messages; each pattern names the case it recognises.
import { QuireError } from '../../errors/quire-error.js';
import { type RunResult, throwIfLimitHit } from '../../process/runner.js';
import { describeExit } from '../program.js';

/** poppler tools exit 1 on open failure, 3 on a permission problem (pdfinfo(1), "EXIT CODES"). */
const POPPLER_PASSWORD = /Incorrect password/i;
const POPPLER_DAMAGED =
  /Document stream is empty|Couldn't find trailer|May not be a PDF file|Couldn't read xref/i;

export function popplerFailure(result: RunResult): QuireError | undefined {
  throwIfLimitHit(result);
  if (result.exitCode === 0) return undefined;
  if (POPPLER_PASSWORD.test(result.stderrTail)) return new QuireError('pdf_encrypted');
  if (result.exitCode === 1 && POPPLER_DAMAGED.test(result.stderrTail)) return new QuireError('pdf_corrupt');
  return new QuireError('engine_failed', describeExit('poppler', result));
}
