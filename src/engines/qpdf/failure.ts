// Maps a finished qpdf run (exit status + stderr tail) to a named QuireError. The only place that
// sniffs qpdf's messages; each pattern names the case it recognises.
import { QuireError } from '../../errors/quire-error.js';
import { type RunResult, throwIfLimitHit } from '../../process/runner.js';
import { describeExit } from '../program.js';

/**
 * qpdf exit codes (qpdf manual, "Exit Status"): 0 success, 2 errors, 3 warnings only (the output
 * was written and is usually fine). Anything else is a crash or a signal.
 */
export const QPDF_EXIT = { ok: 0, error: 2, warnings: 3 } as const;

/** qpdf's message when neither the given (or empty) password opens the file as user or owner. */
const QPDF_INVALID_PASSWORD = /: invalid password\s*$/m;

/**
 * qpdf's fatal messages about a damaged input: it failed even after trying to reconstruct the
 * xref table (`unable to find trailer dictionary`), the file has no header or is empty
 * (`can't find PDF header`), its page tree contains itself (`Loop detected in /Pages structure`:
 * no walk can list its pages), or an object could not be read while writing.
 */
const QPDF_DAMAGED =
  /unable to find trailer dictionary|can't find PDF header|file is damaged|not a PDF file|unable to find page tree|unable to find \/Root|Loop detected in \/Pages structure|expected n n obj|object stream|xref|EOF while reading/i;

/**
 * qpdf's warnings when it read the file only by repairing it: the xref table rebuilt from a scan
 * (`file is damaged` … `Attempting to reconstruct cross-reference table`), a stream's /Length
 * recovered by searching for `endstream`, or no `%PDF-` header. Poppler and Ghostscript repair
 * differently or not at all, so such a file is rewritten by qpdf before the tools see it.
 */
export const QPDF_RECOVERED =
  /file is damaged|Attempting to reconstruct cross-reference table|recovered stream length|can't find PDF header/i;

/**
 * qpdf's warning for a trailer without its required /Size (ISO 32000-2 §7.5.5): a plain rewrite
 * writes such a trailer without /Size again, so the repaired copy needs it set explicitly.
 */
export const QPDF_TRAILER_WITHOUT_SIZE = /trailer dictionary lacks \/Size key/;

export interface QpdfFailureContext {
  /** Whether a password was given: decides between `pdf_encrypted` and `invalid_password`. */
  passwordGiven: boolean;
}

/** Returns the typed error for a failed qpdf run, or undefined if the run succeeded (exit 0 or 3). */
export function qpdfFailure(result: RunResult, context: QpdfFailureContext): QuireError | undefined {
  throwIfLimitHit(result);
  if (result.exitCode === QPDF_EXIT.ok || result.exitCode === QPDF_EXIT.warnings) return undefined;
  if (result.exitCode === QPDF_EXIT.error && QPDF_INVALID_PASSWORD.test(result.stderrTail)) {
    return context.passwordGiven
      ? new QuireError('invalid_password')
      : new QuireError('pdf_encrypted', 'The PDF is protected by a password; give it to open the file');
  }
  if (result.exitCode === QPDF_EXIT.error && QPDF_DAMAGED.test(result.stderrTail)) {
    return new QuireError('pdf_corrupt');
  }
  return new QuireError('engine_failed', describeExit('qpdf', result));
}
