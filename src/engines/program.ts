// What every engine module shares about running its program: the start-up version probe, and the
// public description of a failed run (how it ended, never what it printed).
import { tmpdir } from 'node:os';
import { type RunResult, run } from '../process/runner.js';
import type { EngineName, EngineStatus } from './types.js';

/** A version banner needs neither much time nor memory; a hung probe must not stall start-up. */
export const PROBE_TIMEOUT_MS = 5_000;
/** Heavy engines' banners are instant too, but LibreOffice's needs a second or two on a cold cache. */
export const HEAVY_PROBE_TIMEOUT_MS = 15_000;

/** Runs a banner command and returns its exit code with stdout and stderr (pdfinfo prints on stderr). */
export async function banner(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; text: string }> {
  const result = await run(command, args, { cwd: tmpdir(), timeoutMs, captureStdout: true });
  return { code: result.exitCode, text: `${result.stdout}\n${result.stderrTail}` };
}

/** A probe that throws (program missing, banner timed out) reports the engine unavailable. */
export async function guarded(name: EngineName, probe: () => Promise<EngineStatus>): Promise<EngineStatus> {
  try {
    return await probe();
  } catch (err) {
    return { name, available: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

export interface VersionProbe {
  name: EngineName;
  command: string;
  args: string[];
  /** Pulls the version out of the program's banner. */
  version: (text: string) => string | undefined;
}

/** A program that answers its version command is available, even with a non-zero exit. */
export function probeVersion(p: VersionProbe): Promise<EngineStatus> {
  return guarded(p.name, async () => {
    const { code, text } = await banner(p.command, p.args, PROBE_TIMEOUT_MS);
    const version = p.version(text);
    if (code !== 0 && version === undefined) {
      return { name: p.name, available: false, reason: `${p.command} exited with code ${code}` };
    }
    return { name: p.name, available: true, ...(version ? { version } : {}) };
  });
}

/** A public detail naming the engine and how it ended — never its output, which may quote the file. */
export function describeExit(engine: string, result: RunResult): string {
  const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
  return `${engine} ${how}`;
}
