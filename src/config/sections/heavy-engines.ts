// The heavy engines' own time limits and pools (OCR, LibreOffice, Chromium): `config.heavyEngines`.
import { int, type Section, type SectionValues, setting } from '../section.js';

export const ocr = {
  QUIRE_OCR_TIMEOUT_MS: setting(
    'ocrTimeoutMs',
    int(
      1_000,
      86_400_000,
      1_800_000,
      'Wall time of one OCR run (ocrmypdf with its Tesseract and Ghostscript children).',
    ),
  ),
} satisfies Section;

export const office = {
  QUIRE_OFFICE_POOL_SIZE: setting(
    'size',
    int(1, 64, 2, 'LibreOffice instances kept running; conversions beyond it queue.'),
  ),
  QUIRE_OFFICE_RECYCLE_AFTER: setting(
    'recycleAfter',
    int(1, 100_000, 50, 'Conversions after which a LibreOffice instance is replaced (bounds leaked memory).'),
  ),
  QUIRE_OFFICE_TIMEOUT_MS: setting(
    'timeoutMs',
    int(
      1_000,
      86_400_000,
      1_800_000,
      'Wall time of one office conversion; past it the instance is killed and replaced (`timeout`).',
    ),
  ),
} satisfies Section;

export const browser = {
  QUIRE_BROWSER_POOL_SIZE: setting(
    'size',
    int(1, 64, 2, 'Headless Chromium instances kept running for html-to-pdf.'),
  ),
  QUIRE_BROWSER_RECYCLE_AFTER: setting(
    'recycleAfter',
    int(1, 100_000, 50, 'Pages printed after which a Chromium instance is replaced.'),
  ),
  QUIRE_BROWSER_TIMEOUT_MS: setting(
    'timeoutMs',
    int(
      1_000,
      3_600_000,
      120_000,
      'Wall time of one html-to-pdf print (load, scripts, PDF); past it the browser is killed (`timeout`).',
    ),
  ),
} satisfies Section;

export type HeavyEngines = SectionValues<typeof ocr> & {
  office: SectionValues<typeof office>;
  browser: SectionValues<typeof browser>;
};
