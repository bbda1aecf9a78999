// What a tool may call: one small adapter per native program, each exposing only what it does.
import type { Ghostscript } from './ghostscript.js';
import type { Poppler } from './poppler.js';
import type { Qpdf } from './qpdf.js';

export type EngineName = 'qpdf' | 'ghostscript' | 'poppler';

export interface Engines {
  qpdf: Qpdf;
  ghostscript: Ghostscript;
  poppler: Poppler;
}

export interface EngineStatus {
  name: EngineName;
  available: boolean;
  version?: string;
  reason?: string;
}
