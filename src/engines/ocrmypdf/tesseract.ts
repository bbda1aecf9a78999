// Tesseract as ocrmypdf uses it: its start-up probe, which also lists the installed OCR languages
// (the `ocr` tool's `languages` enum).

import { banner, guarded, HEAVY_PROBE_TIMEOUT_MS } from '../program.js';
import type { EngineStatus } from '../types.js';

/**
 * `tesseract --list-langs` prints a header line and one code per line. `osd` is orientation and
 * script detection, not a language a user can ask for.
 */
export function parseLanguages(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[a-z]{3}(_[a-z_]+)?$/i.test(l) && l !== 'osd')
    .sort();
}

export function probeTesseract(): Promise<EngineStatus> {
  return guarded('tesseract', async () => {
    const version = /tesseract (\S+)/.exec(
      (await banner('tesseract', ['--version'], HEAVY_PROBE_TIMEOUT_MS)).text,
    )?.[1];
    const languages = parseLanguages(
      (await banner('tesseract', ['--list-langs'], HEAVY_PROBE_TIMEOUT_MS)).text,
    );
    if (!version || languages.length === 0)
      return { name: 'tesseract', available: false, reason: 'tesseract or its language data is missing' };
    // Languages are in the version text too: /readyz shows only status and version.
    return {
      name: 'tesseract',
      available: true,
      version: `${version} (languages: ${languages.join(', ')})`,
      languages,
    };
  });
}
