// The heavy engines' own time limits and pools (OCR, LibreOffice, Chromium, veraPDF): `config.heavyEngines`.
import os from 'node:os';
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
    int(
      1,
      100_000,
      50,
      'Conversions after which a LibreOffice instance is replaced (bounds leaked memory); a job that leaves fonts in it retires it at once.',
    ),
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
    int(
      1,
      64,
      Math.max(1, os.availableParallelism()),
      'Pages printed at once by the one headless Chromium of html-to-pdf, each in a context of its own (default: cores); more jobs queue.',
    ),
  ),
  QUIRE_BROWSER_RECYCLE_AFTER: setting(
    'recycleAfter',
    int(
      1,
      100_000,
      1_000,
      'Pages printed after which Chromium is replaced (its pages in flight finish first).',
    ),
  ),
  QUIRE_BROWSER_RECYCLE_RSS_BYTES: setting(
    'recycleRssBytes',
    int(
      64 * 1024 * 1024,
      64 * 1024 ** 3,
      1024 ** 3,
      'Resident memory of all Chromium processes (proportional set size: shared pages counted once) past which it is replaced between pages.',
    ),
  ),
  QUIRE_BROWSER_KEEP_TAB_MS: setting(
    'keepTabMs',
    int(
      0,
      600_000,
      30_000,
      "How long a printed html-to-pdf tab, wiped, waits for the same account's next job, which then reuses its renderer (never another account's); 0 opens a fresh context for every job.",
    ),
  ),
  QUIRE_BROWSER_TIMEOUT_MS: setting(
    'timeoutMs',
    int(
      1_000,
      3_600_000,
      120_000,
      'Wall time of one html-to-pdf print (load, scripts, PDF); past it the page is closed, its renderer with it (`timeout`).',
    ),
  ),
} satisfies Section;

export const validator = {
  QUIRE_VALIDATOR_POOL_SIZE: setting(
    'size',
    int(
      1,
      64,
      1,
      "veraPDF JVMs kept running for `validate` and pdfa's verdict; validations beyond it queue.",
    ),
  ),
  QUIRE_VALIDATOR_RECYCLE_AFTER: setting(
    'recycleAfter',
    int(1, 100_000, 200, "Validations after which a veraPDF JVM is replaced (bounds its heap's growth)."),
  ),
  QUIRE_VALIDATOR_TIMEOUT_MS: setting(
    'timeoutMs',
    int(
      1_000,
      86_400_000,
      600_000,
      'Wall time of one veraPDF validation; past it the JVM is killed and replaced (`timeout`).',
    ),
  ),
} satisfies Section;

export type HeavyEngines = SectionValues<typeof ocr> & {
  office: SectionValues<typeof office>;
  browser: SectionValues<typeof browser>;
  validator: SectionValues<typeof validator>;
};
