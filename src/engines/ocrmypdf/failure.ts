// Maps a finished ocrmypdf run to a named QuireError: by its documented exit codes, and for exit 2
// by one stderr pattern naming the case. The only place that reads ocrmypdf's messages.
import { QuireError } from '../../errors/quire-error.js';
import { type RunResult, throwIfLimitHit } from '../../process/runner.js';
import { describeExit } from '../program.js';

/**
 * ocrmypdf's documented exit codes (ocrmypdf.exceptions.ExitCode): 2 input not a readable PDF or
 * image, 4 output failed validation, 6 page already has text (only without a mode flag), 8 the
 * PDF is encrypted, 10 PDF/A conversion failed.
 */
const EXIT = { ok: 0, badInput: 2, invalidOutput: 4, encrypted: 8, pdfaFailed: 10 } as const;

/** ocrmypdf exits 2 also for an image without resolution it cannot place; name that case. */
const IMAGE_DPI = /DPI|resolution/i;

export function ocrmypdfFailure(result: RunResult): QuireError | undefined {
  throwIfLimitHit(result);
  switch (result.exitCode) {
    case EXIT.ok:
      return undefined;
    case EXIT.encrypted:
      return new QuireError('pdf_encrypted', 'The PDF is encrypted; unlock it first');
    case EXIT.badInput:
      return IMAGE_DPI.test(result.stderrTail)
        ? new QuireError('engine_failed', 'The image has no usable resolution')
        : new QuireError('pdf_corrupt', 'The file could not be read as a PDF or image');
    case EXIT.invalidOutput:
    case EXIT.pdfaFailed:
      return new QuireError('engine_failed', 'ocrmypdf could not produce a valid output');
    default:
      return new QuireError('engine_failed', describeExit('ocrmypdf', result));
  }
}
