// The pdf2docx module of the engine list (MIT, over PyMuPDF): PDF to Word, sandboxed like LibreOffice.
import { requireSandbox } from '../../process/sandbox.js';
import { engineDefaults } from '../call-options.js';
import { guarded } from '../program.js';
import { installedVersions } from '../python-package.js';
import type { EngineModule, EngineStatus } from '../types.js';
import { createPdf2docx, PDF2DOCX_VENV, type Pdf2docx } from './pdf2docx.js';

function probePdf2docx(): Promise<EngineStatus> {
  return guarded('pdf2docx', async () => {
    const version = (await installedVersions(PDF2DOCX_VENV, ['pdf2docx', 'pymupdf']))?.[0];
    if (!version) {
      return { name: 'pdf2docx', available: false, reason: `pdf2docx is not installed in ${PDF2DOCX_VENV}` };
    }
    // Never run unsandboxed: without bubblewrap the engine is missing, with the reason (guarded).
    await requireSandbox('pdf2docx');
    return { name: 'pdf2docx', available: true, version };
  });
}

export const pdf2docxEngine: EngineModule<'pdf2docx', Pdf2docx> = {
  name: 'pdf2docx',
  probe: async () => [await probePdf2docx()],
  create: (settings) => createPdf2docx(engineDefaults(settings, 'pdf2docx')),
};
