// Maps a finished engine run (exit status + stderr tail) to a named QuireError. This is the only
// place that sniffs engine messages; each pattern names the case it recognises.
import { QuireError } from '../errors/quire-error.js';
import { type RunResult, throwIfLimitHit } from '../process/runner.js';

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
 * (`can't find PDF header`), or an object could not be read while writing.
 */
const QPDF_DAMAGED =
  /unable to find trailer dictionary|can't find PDF header|file is damaged|not a PDF file|unable to find page tree|unable to find \/Root|expected n n obj|object stream|xref|EOF while reading/i;

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

/** A public detail naming the engine and how it ended — never its output, which may quote the file. */
function describeExit(engine: string, result: RunResult): string {
  const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
  return `${engine} ${how}`;
}
