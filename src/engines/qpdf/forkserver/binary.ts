// Where scripts/build-helpers.sh puts the qpdf forkserver (qpdf-forkserver.c). The module is four
// folders below the repository root both as src/engines/qpdf/forkserver/binary.ts (tests) and as
// dist/engines/qpdf/forkserver/binary.js.
import { fileURLToPath } from 'node:url';
import { builtHelper } from '../../../process/limits.js';

export const QPDF_FORKSERVER = fileURLToPath(
  new URL('../../../../dist/bin/quire-qpdf-forkserver', import.meta.url),
);

/** The forkserver when it is built, else null: qpdf is then started anew for every run, as before. */
export const qpdfForkServer = builtHelper(QPDF_FORKSERVER);

/**
 * What qpdf runs of `binary` fork from: the forkserver, built against the libqpdf of the installed
 * `qpdf`, so only for that program, and unless QUIRE_QPDF_FORKSERVER turned it off (`wanted` false).
 */
export function forkServerFor(binary: string, wanted = true): string | null {
  return wanted && binary === 'qpdf' ? qpdfForkServer() : null;
}

/** The run option that sends a run through `forkServer`, if there is one. */
export function viaForkServer(forkServer: string | null): { forkServer?: string } {
  return forkServer ? { forkServer } : {};
}
