// The pymupdf module of the engine list: PyMuPDF (AGPL-3.0) in its own venv, used for redaction and
// personal-data detection (with phonenumbers and python-stdnum), sandboxed like LibreOffice and pdf2docx.
import { requireSandbox } from '../../process/sandbox.js';
import { engineDefaults } from '../call-options.js';
import { guarded } from '../program.js';
import { installedVersions } from '../python-package.js';
import type { EngineModule, EngineStatus } from '../types.js';
import { createPymupdf, PYMUPDF_VENV, type Pymupdf } from './pymupdf.js';

function probePymupdf(): Promise<EngineStatus> {
  return guarded('pymupdf', async () => {
    // The driver's personal-data module needs both libraries (redact's terms import it too).
    const packages = ['pymupdf', 'phonenumbers', 'python-stdnum'];
    const version = (await installedVersions(PYMUPDF_VENV, packages))?.[0];
    if (!version) {
      return {
        name: 'pymupdf',
        available: false,
        reason: `PyMuPDF, phonenumbers or python-stdnum is not installed in ${PYMUPDF_VENV}`,
      };
    }
    // Never run unsandboxed: without bubblewrap the engine is missing, with the reason (guarded).
    await requireSandbox('pymupdf');
    return { name: 'pymupdf', available: true, version };
  });
}

export const pymupdfEngine: EngineModule<'pymupdf', Pymupdf> = {
  name: 'pymupdf',
  probe: async () => [await probePymupdf()],
  create: (settings) => createPymupdf(engineDefaults(settings, 'pymupdf')),
};
