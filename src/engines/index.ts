// Builds the engine adapters with the configured limits and probes which programs are installed.
import { tmpdir } from 'node:os';
import { run } from '../process/runner.js';
import { createGhostscript } from './ghostscript.js';
import { createPoppler } from './poppler.js';
import { createQpdf } from './qpdf.js';
import type { EngineName, EngineStatus, Engines } from './types.js';

export function createEngines(opts: {
  timeoutMs: number;
  memoryBytes: number;
  /** Observes every engine run's wall time, by engine. */
  observe?: (engine: EngineName, seconds: number) => void;
}): Engines {
  const defaults = (engine: EngineName) => ({
    timeoutMs: opts.timeoutMs,
    memoryBytes: opts.memoryBytes,
    ...(opts.observe ? { onFinished: (ms: number) => opts.observe?.(engine, ms / 1000) } : {}),
  });
  return {
    qpdf: createQpdf(defaults('qpdf')),
    ghostscript: createGhostscript(defaults('ghostscript')),
    poppler: createPoppler(defaults('poppler')),
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
export function probeEngines(): Promise<EngineStatus[]> {
  return Promise.all(PROBES.map(probe));
}
