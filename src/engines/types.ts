// What a tool may call: one small adapter per native program, each exposing only what it does.
import type { Chromium } from './chromium.js';
import type { Ghostscript } from './ghostscript.js';
import type { Libreoffice } from './libreoffice.js';
import type { Ocrmypdf } from './ocrmypdf.js';
import type { Poppler } from './poppler.js';
import type { Qpdf } from './qpdf.js';
import type { QpdfOverlay } from './qpdf-overlay.js';

export type EngineName =
  | 'qpdf'
  | 'ghostscript'
  | 'poppler'
  | 'ocrmypdf'
  | 'tesseract'
  | 'libreoffice'
  | 'chromium'
  /** Not a program: whether engines can run in their own network namespace (reported, never required). */
  | 'netns';

export interface Engines {
  qpdf: Qpdf;
  ghostscript: Ghostscript;
  poppler: Poppler;
  /** ocrmypdf with Tesseract (OCR, PDF/A). */
  ocrmypdf: Ocrmypdf;
  /** A pool of long-lived LibreOffice instances; stop it with closeEngines. */
  libreoffice: Libreoffice;
  /** A pool of long-lived headless Chromium instances; stop it with closeEngines. */
  chromium: Chromium;
  /** qpdf's overlay/underlay (stamps); availability is qpdf's. */
  qpdfOverlay: QpdfOverlay;
}

export interface EngineStatus {
  name: EngineName;
  available: boolean;
  version?: string;
  reason?: string;
  /** Tesseract only: installed OCR languages (the `ocr` tool's `languages` enum). */
  languages?: string[];
}
