// veraPDF adapter: validates a PDF against PDF/UA or PDF/A profiles through the pool of warm JVMs
// (validator-pool.ts) and maps the worker's replies to typed errors; the pool owns time limits,
// recycling and hang recovery.
import path from 'node:path';
import { QuireError } from '../../errors/quire-error.js';
import type { EngineCallOptions } from '../call-options.js';
import { VERAPDF_VERSION } from './java.js';
import { type ProfileReport, toProfileReport } from './report.js';
import { createValidatorPool, type ValidatorPoolOptions } from './validator-pool.js';

export interface VerapdfOptions extends ValidatorPoolOptions {
  /** Wall time of one validation (QUIRE_VALIDATOR_TIMEOUT_MS); a longer one is a hang. */
  timeoutMs: number;
  onFinished?: (durationMs: number) => void;
}

export function createVerapdf(opts: VerapdfOptions) {
  const pool = createValidatorPool(opts);
  return {
    version: VERAPDF_VERSION,

    /**
     * One report per profile: `auto` validates against every profile the file's XMP claims (PDF/A
     * and PDF/UA), or PDF/A-1B when it claims none, as veraPDF's own command line does.
     */
    async validate(input: string, flavour: string, call: EngineCallOptions): Promise<ProfileReport[]> {
      const started = performance.now();
      try {
        const reply = await pool.validate(
          { input: path.resolve(input), profile: flavour },
          opts.timeoutMs,
          call.signal,
        );
        if (reply.ok) return reply.reports.map(toProfileReport);
        // `encrypted`: veraPDF's EncryptedPdfException (it validates no encrypted file).
        if (reply.error === 'encrypted')
          throw new QuireError('pdf_encrypted', 'veraPDF does not validate encrypted PDFs');
        // `unreadable`: its ModelParsingException, a file its parser cannot read as PDF.
        if (reply.error === 'unreadable')
          throw new QuireError('pdf_corrupt', 'veraPDF could not parse the PDF');
        if (reply.error === 'memory')
          throw new QuireError('engine_memory_exceeded', 'veraPDF ran out of memory on this PDF');
        throw new QuireError('engine_failed', 'veraPDF could not validate the PDF');
      } finally {
        opts.onFinished?.(performance.now() - started);
      }
    },

    /** Starts a JVM in the background if none is idle (validator-pool.ts `warm`). */
    warm: () => pool.warm(),

    /** Stops every JVM; validations still running are killed with theirs. */
    close: () => pool.close(),
  };
}

export type Verapdf = ReturnType<typeof createVerapdf>;
