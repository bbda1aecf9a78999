// The pdfdiff module of the engine list: the compare driver over PyMuPDF (AGPL-3.0), numpy and SciPy
// (BSD) in its own venv, run in the document sandbox like pdf2docx and redact's PyMuPDF.
import { requireSandbox } from '../../process/sandbox.js';
import { engineDefaults } from '../call-options.js';
import { banner, guarded, HEAVY_PROBE_TIMEOUT_MS } from '../program.js';
import type { EngineModule, EngineStatus } from '../types.js';
import { createPdfdiff, PDFDIFF_VENV, type Pdfdiff } from './pdfdiff.js';

/** The version reported is PyMuPDF's; numpy and SciPy must import beside it. */
const PROBE = 'import pymupdf, numpy, scipy.ndimage; print(pymupdf.VersionBind)';

function probePdfdiff(): Promise<EngineStatus> {
  return guarded('pdfdiff', async () => {
    const { code, text } = await banner(
      `${PDFDIFF_VENV}/bin/python`,
      ['-I', '-c', PROBE],
      HEAVY_PROBE_TIMEOUT_MS,
    );
    const version = /^(\d+\.\d+(?:\.\d+)?)/m.exec(text)?.[1];
    if (code !== 0 || !version) {
      return {
        name: 'pdfdiff',
        available: false,
        reason: `PyMuPDF, numpy and SciPy are not installed in ${PDFDIFF_VENV}`,
      };
    }
    // Never run unsandboxed: without bubblewrap the engine is missing, with the reason (guarded).
    await requireSandbox('pdfdiff');
    return { name: 'pdfdiff', available: true, version };
  });
}

export const pdfdiffEngine: EngineModule<'pdfdiff', Pdfdiff> = {
  name: 'pdfdiff',
  probe: async () => [await probePdfdiff()],
  create: (settings) => createPdfdiff(engineDefaults(settings, 'pdfdiff')),
};
