// Where scripts/build-helpers.sh puts the qpdf forkserver (qpdf-forkserver.c). The module is four
// folders below the repository root both as src/engines/qpdf/forkserver/binary.ts (tests) and as
// dist/engines/qpdf/forkserver/binary.js.
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const QPDF_FORKSERVER = fileURLToPath(
  new URL('../../../../dist/bin/quire-qpdf-forkserver', import.meta.url),
);

let found: string | null | undefined;

/**
 * The forkserver when it is built, else null: qpdf is then started anew for every run, as before.
 * Looked up once (it is built before the service starts).
 */
export function qpdfForkServer(): string | null {
  if (found === undefined) {
    try {
      accessSync(QPDF_FORKSERVER, constants.X_OK);
      found = QPDF_FORKSERVER;
    } catch {
      found = null;
    }
  }
  return found;
}
