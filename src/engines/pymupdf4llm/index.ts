// The pymupdf4llm module of the engine list: pymupdf4llm over PyMuPDF (both AGPL-3.0) in its own venv,
// turning PDFs into Markdown or JSON blocks (pdf-to-markdown), sandboxed like pdf2docx and PyMuPDF.
import { requireSandbox } from '../../process/sandbox.js';
import { engineDefaults } from '../call-options.js';
import { banner, guarded, HEAVY_PROBE_TIMEOUT_MS } from '../program.js';
import type { EngineModule, EngineStatus } from '../types.js';
import { createPymupdf4llm, PYMUPDF4LLM_PYTHON, type Pymupdf4llm } from './pymupdf4llm.js';

function probePymupdf4llm(): Promise<EngineStatus> {
  return guarded('pymupdf4llm', async () => {
    const { code, text } = await banner(
      PYMUPDF4LLM_PYTHON,
      ['-I', '-c', "import importlib.metadata as m; print(m.version('pymupdf4llm'))"],
      HEAVY_PROBE_TIMEOUT_MS,
    );
    const version = /^(\d+\.\d+(?:\.\d+)?)/m.exec(text)?.[1];
    if (code !== 0 || !version) {
      return {
        name: 'pymupdf4llm',
        available: false,
        reason: `pymupdf4llm is not installed in ${PYMUPDF4LLM_PYTHON}`,
      };
    }
    // Never run unsandboxed: without bubblewrap the engine is missing, with the reason (guarded).
    await requireSandbox('pymupdf4llm');
    return { name: 'pymupdf4llm', available: true, version };
  });
}

export const pymupdf4llmEngine: EngineModule<'pymupdf4llm', Pymupdf4llm> = {
  name: 'pymupdf4llm',
  probe: async () => [await probePymupdf4llm()],
  create: (settings) => createPymupdf4llm(engineDefaults(settings, 'pymupdf4llm')),
};
