// What the engine list is made of: one module per program (its name, start-up probe and factory) and
// the statuses those probes report to /readyz, GET /tools and the catalogue.
import type { TimestampAuthority } from './pyhanko/timestamp.js';

/** The names statuses are reported under; tools declare the ones they need. */
export type EngineName =
  | 'qpdf'
  | 'ghostscript'
  | 'poppler'
  | 'ocrmypdf'
  | 'tesseract'
  | 'libreoffice'
  | 'chromium'
  | 'pyhanko'
  | 'pymupdf'
  | 'pdf2docx'
  | 'pdfdiff'
  | 'verapdf'
  | 'pymupdf4llm'
  /** Not a program: whether engines can run in their own network namespace (reported, never required). */
  | 'netns';

export interface EngineStatus {
  name: EngineName;
  available: boolean;
  version?: string;
  reason?: string;
  /** Tesseract only: installed OCR languages (the `ocr` tool's `languages` enum). */
  languages?: string[];
}

/** Settings of the heavy engines (config: QUIRE_OCR_*, QUIRE_OFFICE_*, QUIRE_BROWSER_*, QUIRE_VALIDATOR_*). */
export interface HeavyEngineOptions {
  /** From the netns probe: run ocrmypdf without any network (LibreOffice has its sandbox's). */
  isolateNetwork: boolean;
  /** Where pooled instances keep their profiles and sockets. */
  workRoot: string;
  ocrTimeoutMs: number;
  office: { size: number; recycleAfter: number; timeoutMs: number };
  browser: { size: number; recycleAfter: number; recycleRssBytes?: number; timeoutMs: number };
  validator: { size: number; recycleAfter: number; timeoutMs: number };
}

/** What every module's factory is given: the configured limits. */
export interface EngineSettings {
  timeoutMs: number;
  memoryBytes: number;
  /** Whether qpdf runs fork from the qpdf forkserver when it is built (QUIRE_QPDF_FORKSERVER). */
  qpdfForkServer?: boolean;
  heavy: HeavyEngineOptions;
  /** The time-stamp authority `sign` asks for PAdES B-T (QUIRE_SIGN_TSA_URL); none means B-B. */
  timestampAuthority?: TimestampAuthority;
  /** Observes every engine run's wall time, by engine: the engine-duration histogram. */
  durations?: RunDurations;
}

/**
 * The engine-duration metric as the engines see it: prom-client's Histogram fits it. An object of a
 * library handed down, so an engine that times a run calls no module of ours above its folder.
 */
export interface RunDurations {
  observe(labels: { engine: EngineName }, seconds: number): void;
}

/**
 * One program Quire drives. Adding an engine is one folder exporting this plus one line in the list
 * of index.ts (and, when its probe reports a new name, that name in EngineName).
 */
export interface EngineModule<Name extends string = string, Engine = unknown> {
  /** The key tools reach the adapter under: `ctx.engines[name]`. */
  readonly name: Name;
  /** Asks the installed program for its version at start-up; a missing one is `available: false`. */
  probe(): Promise<EngineStatus[]>;
  create(settings: EngineSettings): Engine;
  /** Stops what the adapter keeps running between jobs (instance pools). */
  close?(engine: Engine): Promise<void>;
}
