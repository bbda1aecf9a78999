// LibreOffice adapter: office documents to PDF through the instance pool (office-pool.ts). Maps the
// bridge's replies to typed errors; the pool owns time limits, recycling and hang recovery.
import path from 'node:path';
import { QuireError } from '../../errors/quire-error.js';
import type { EngineCallOptions } from '../call-options.js';
import { type Accessibility, createOfficePool, type OfficePoolOptions } from './office-pool.js';

export interface OfficeConvertOptions {
  /** Page styles in use turn landscape (text and spreadsheets; slides keep their own shape). */
  landscape: boolean;
  /** The password of an encrypted document (MediaDescriptor `Password`, sent over the bridge's socket). */
  password?: string;
  /** `tagged`: a structure tree (UseTaggedPDF); `pdf-ua-1`: LibreOffice's PDF/UA export. */
  accessibility?: Accessibility;
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
            accessibility: o.accessibility ?? 'none',
            ...(o.password === undefined ? {} : { password: o.password }),
          },
          opts.timeoutMs,
          call.signal,
        );
        // `unreadable`: loadComponentFromURL returned nothing or not a document we can export.
        if (!reply.ok && reply.error === 'unreadable')
          throw new QuireError('unsupported_file', 'LibreOffice could not open the document');
        // `encrypted`, `wrong_password`: the file is an encrypted OOXML or OpenDocument (the bridge
        // checks, as LibreOffice's refusal does not say why).
        if (!reply.ok && reply.error === 'encrypted')
          throw new QuireError('office_encrypted', 'The document is encrypted: give its password');
        if (!reply.ok && reply.error === 'wrong_password')
          throw new QuireError('invalid_password', 'The password does not open the document');
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
