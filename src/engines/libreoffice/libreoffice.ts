// LibreOffice adapter: office documents to PDF through the instance pool (office-pool.ts). Maps the
// bridge's replies to typed errors; the pool owns time limits, recycling and hang recovery.
import path from 'node:path';
import { QuireError } from '../../errors/quire-error.js';
import type { EngineCallOptions } from '../call-options.js';
import { createOfficePool, type OfficePoolOptions } from './office-pool.js';

export interface OfficeConvertOptions {
  /** Page styles in use turn landscape (text and spreadsheets; slides keep their own shape). */
  landscape: boolean;
}

export interface LibreofficeOptions extends OfficePoolOptions {
  /** Wall time of one conversion (QUIRE_OFFICE_TIMEOUT_MS); a longer one is a hang. */
  timeoutMs: number;
  onFinished?: (durationMs: number) => void;
}

export function createLibreoffice(opts: LibreofficeOptions) {
  const pool = createOfficePool(opts);
  return {
    async toPdf(input: string, output: string, o: OfficeConvertOptions, call: EngineCallOptions) {
      const started = performance.now();
      try {
        const reply = await pool.convert(
          {
            input: path.resolve(input),
            output: path.resolve(output),
            landscape: o.landscape,
          },
          opts.timeoutMs,
          call.signal,
        );
        // `unreadable`: loadComponentFromURL returned nothing or not a document we can export.
        if (!reply.ok && reply.error === 'unreadable')
          throw new QuireError('unsupported_file', 'LibreOffice could not open the document');
        if (!reply.ok) throw new QuireError('engine_failed', 'LibreOffice could not convert the document');
      } finally {
        opts.onFinished?.(performance.now() - started);
      }
    },

    /** Stops every instance; conversions still running are killed with theirs. */
    close: () => pool.close(),
  };
}

export type Libreoffice = ReturnType<typeof createLibreoffice>;
