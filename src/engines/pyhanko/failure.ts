// Maps a finished pyHanko driver run to a named QuireError: the driver names the refusals it
// recognises ({"error": "<class>"}, exit 3); any other non-zero exit is a crash of the engine.
import { QuireError } from '../../errors/quire-error.js';
import { type RunResult, throwIfLimitHit } from '../../process/runner.js';
import { describeExit } from '../program.js';

/** driver.py's exit code for a refusal it names on stdout. */
export const REFUSED_EXIT = 3;

/** Each class driver.py may report, and what the job fails with. Messages never quote the file. */
const REFUSALS: Record<string, () => QuireError> = {
  invalid_password: () => new QuireError('invalid_password', 'The password does not open the PKCS#12 bundle'),
  invalid_certificate: () =>
    new QuireError(
      'invalid_certificate',
      'The certificate option is not a PKCS#12 bundle (base64 of a .p12/.pfx file)',
    ),
  certify_signed: () =>
    new QuireError(
      'invalid_options',
      'The document already carries a signature; certification must be the first signature',
    ),
  invalid_trust_root: () =>
    new QuireError('invalid_options', 'A trust root is not a PEM certificate (-----BEGIN CERTIFICATE-----)'),
  page_out_of_range: () => new QuireError('page_range_invalid', 'The appearance page is not in the document'),
  timestamp_failed: () =>
    new QuireError('timestamp_failed', 'The time-stamp authority did not answer with a timestamp'),
  pdf_corrupt: () => new QuireError('pdf_corrupt', 'pyHanko could not read the PDF'),
};

/** The driver's result (parsed stdout) or the error the run ends the job with. */
export function pyhankoOutcome(result: RunResult): unknown {
  throwIfLimitHit(result);
  if (result.exitCode === 0 || result.exitCode === REFUSED_EXIT) {
    const lastLine = result.stdout.trim().split('\n').pop() ?? '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(lastLine);
    } catch {
      throw new QuireError('engine_failed', 'pyHanko answered without a result');
    }
    if (result.exitCode === 0) return parsed;
    const refusal = REFUSALS[(parsed as { error?: string }).error ?? ''];
    if (refusal) throw refusal();
  }
  throw new QuireError('engine_failed', describeExit('pyHanko', result));
}
