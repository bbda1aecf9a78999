// Builds the engine adapters with the configured limits and probes which programs are installed.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../process/runner.js';
import { createChromium } from './chromium.js';
import { createGhostscript } from './ghostscript.js';
import { probeHeavyEngines } from './heavy-probes.js';
import { createLibreoffice } from './libreoffice.js';
import { createOcrmypdf } from './ocrmypdf.js';
import { createPoppler } from './poppler.js';
import { createQpdf } from './qpdf.js';
import { createQpdfOverlay } from './qpdf-overlay.js';
import type { EngineName, EngineStatus, Engines } from './types.js';

/** Settings of the heavy engines (config: QUIRE_OCR_*, QUIRE_OFFICE_*, QUIRE_BROWSER_*). */
export interface HeavyEngineOptions {
  /** From the netns probe: run ocrmypdf without any network (LibreOffice has its sandbox's). */
  isolateNetwork: boolean;
  /** Where pooled instances keep their profiles and sockets. */
  workRoot: string;
  ocrTimeoutMs: number;
  office: { size: number; recycleAfter: number; timeoutMs: number };
  browser: { size: number; recycleAfter: number; timeoutMs: number };
}

/** For callers that build engines without a config (engine-tier tests): one of each, lazily. */
function defaultHeavy(timeoutMs: number): HeavyEngineOptions {
  return {
    isolateNetwork: false,
    workRoot: path.join(tmpdir(), 'quire-pools'),
    ocrTimeoutMs: timeoutMs,
    office: { size: 1, recycleAfter: 50, timeoutMs },
    browser: { size: 1, recycleAfter: 50, timeoutMs },
  };
}

export function createEngines(opts: {
  timeoutMs: number;
  memoryBytes: number;
  heavy?: HeavyEngineOptions;
  /** Observes every engine run's wall time, by engine. */
  observe?: (engine: EngineName, seconds: number) => void;
}): Engines {
  const defaults = (engine: EngineName) => ({
    timeoutMs: opts.timeoutMs,
    memoryBytes: opts.memoryBytes,
    ...(opts.observe ? { onFinished: (ms: number) => opts.observe?.(engine, ms / 1000) } : {}),
  });
  const heavy = opts.heavy ?? defaultHeavy(opts.timeoutMs);
  const observed = (engine: EngineName) =>
    opts.observe ? { onFinished: (ms: number) => opts.observe?.(engine, ms / 1000) } : {};
  return {
    qpdf: createQpdf(defaults('qpdf')),
    ghostscript: createGhostscript(defaults('ghostscript')),
    poppler: createPoppler(defaults('poppler')),
    ocrmypdf: createOcrmypdf(
      { ...defaults('ocrmypdf'), timeoutMs: heavy.ocrTimeoutMs },
      { isolateNetwork: heavy.isolateNetwork },
    ),
    libreoffice: createLibreoffice({
      ...heavy.office,
      workRoot: path.join(heavy.workRoot, 'office'),
      memoryBytes: opts.memoryBytes,
      ...observed('libreoffice'),
    }),
    chromium: createChromium({
      ...heavy.browser,
      workRoot: path.join(heavy.workRoot, 'browser'),
      ...observed('chromium'),
    }),
    qpdfOverlay: createQpdfOverlay(defaults('qpdf')),
  };
}

interface Probe {
  name: EngineName;
  command: string;
  args: string[];
  /** Pulls the version out of the program's banner (pdfinfo prints it on stderr). */
  version: (out: string) => string | undefined;
}

const PROBES: readonly Probe[] = [
  {
    name: 'qpdf',
    command: 'qpdf',
    args: ['--version'],
    version: (out) => /qpdf version (\S+)/.exec(out)?.[1],
  },
  {
    name: 'ghostscript',
    command: 'gs',
    args: ['--version'],
    version: (out) => /^(\d+\.\d+(?:\.\d+)?)/m.exec(out)?.[1],
  },
  {
    name: 'poppler',
    command: 'pdfinfo',
    args: ['-v'],
    version: (out) => /pdfinfo version (\S+)/.exec(out)?.[1],
  },
];

/** A version banner needs neither much time nor memory; a hung probe must not stall start-up. */
const PROBE_TIMEOUT_MS = 5_000;

async function probe(p: Probe): Promise<EngineStatus> {
  try {
    const result = await run(p.command, p.args, {
      cwd: tmpdir(),
      timeoutMs: PROBE_TIMEOUT_MS,
      captureStdout: true,
    });
    const version = p.version(`${result.stdout}\n${result.stderrTail}`);
    if (result.exitCode !== 0 && version === undefined) {
      return { name: p.name, available: false, reason: `${p.command} exited with code ${result.exitCode}` };
    }
    return { name: p.name, available: true, ...(version ? { version } : {}) };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { name: p.name, available: false, reason };
  }
}

/** Runs each engine's version command; a missing program is `available: false` with a reason. */
export async function probeEngines(): Promise<EngineStatus[]> {
  const [core, heavy] = await Promise.all([Promise.all(PROBES.map(probe)), probeHeavyEngines()]);
  return [...core, ...heavy];
}

/** Stops the engine pools (LibreOffice, Chromium); the per-run engines need nothing. */
export async function closeEngines(engines: Engines): Promise<void> {
  await Promise.all([engines.libreoffice.close(), engines.chromium.close()]);
}
