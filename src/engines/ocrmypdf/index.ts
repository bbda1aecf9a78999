// The ocrmypdf module of the engine list: OCR and PDF/A. Its probe reports ocrmypdf and Tesseract
// separately, since the `ocr` tool needs both and `pdfa` only ocrmypdf.
import { engineDefaults } from '../call-options.js';
import { banner, guarded, HEAVY_PROBE_TIMEOUT_MS } from '../program.js';
import type { EngineModule, EngineStatus } from '../types.js';
import { createOcrmypdf, type Ocrmypdf } from './ocrmypdf.js';
import { probeTesseract } from './tesseract.js';

function probeOcrmypdf(): Promise<EngineStatus> {
  return guarded('ocrmypdf', async () => {
    const { code, text } = await banner('ocrmypdf', ['--version'], HEAVY_PROBE_TIMEOUT_MS);
    const version = /^(\d+\.\d+(?:\.\d+)?)/m.exec(text)?.[1];
    if (code !== 0 || !version)
      return { name: 'ocrmypdf', available: false, reason: 'ocrmypdf did not answer' };
    return { name: 'ocrmypdf', available: true, version };
  });
}

export const ocrmypdfEngine: EngineModule<'ocrmypdf', Ocrmypdf> = {
  name: 'ocrmypdf',
  probe: () => Promise.all([probeOcrmypdf(), probeTesseract()]),
  create: (settings) =>
    createOcrmypdf(
      { ...engineDefaults(settings, 'ocrmypdf'), timeoutMs: settings.heavy.ocrTimeoutMs },
      { isolateNetwork: settings.heavy.isolateNetwork },
    ),
};
