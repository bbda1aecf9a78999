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
