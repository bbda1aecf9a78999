// Start-up probes of the optional heavy engines (ocrmypdf + Tesseract, LibreOffice, Chromium, the
// last two with their sandbox) and of network isolation. A missing one disables only its own tools.
import { tmpdir } from 'node:os';
import { probeNetworkIsolation } from '../process/network-isolation.js';
import { run } from '../process/runner.js';
import { requireSandbox } from '../process/sandbox.js';
import { CHROMIUM } from './browser-pool.js';
import type { EngineStatus } from './types.js';

/** Version banners are instant; LibreOffice's needs a second or two on a cold cache. */
const PROBE_TIMEOUT_MS = 15_000;

async function output(command: string, args: string[]): Promise<{ code: number | null; text: string }> {
  const result = await run(command, args, {
    cwd: tmpdir(),
    timeoutMs: PROBE_TIMEOUT_MS,
    captureStdout: true,
  });
  return { code: result.exitCode, text: `${result.stdout}\n${result.stderrTail}` };
}

async function guarded(
  name: EngineStatus['name'],
  probe: () => Promise<EngineStatus>,
): Promise<EngineStatus> {
  try {
    return await probe();
  } catch (err) {
    return { name, available: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

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

async function probeOcrmypdf(): Promise<EngineStatus> {
  const { code, text } = await output('ocrmypdf', ['--version']);
  const version = /^(\d+\.\d+(?:\.\d+)?)/m.exec(text)?.[1];
  if (code !== 0 || !version)
    return { name: 'ocrmypdf', available: false, reason: 'ocrmypdf did not answer' };
  return { name: 'ocrmypdf', available: true, version };
}

async function probeTesseract(): Promise<EngineStatus> {
  const banner = await output('tesseract', ['--version']);
  const version = /tesseract (\S+)/.exec(banner.text)?.[1];
  const languages = parseLanguages((await output('tesseract', ['--list-langs'])).text);
  if (!version || languages.length === 0)
    return { name: 'tesseract', available: false, reason: 'tesseract or its language data is missing' };
  // Languages are in the version text too: /readyz shows only status and version.
  return {
    name: 'tesseract',
    available: true,
    version: `${version} (languages: ${languages.join(', ')})`,
    languages,
  };
}

async function probeLibreoffice(): Promise<EngineStatus> {
  const { code, text } = await output('soffice', ['--version']);
  const version = /LibreOffice (\d+(?:\.\d+)+)/.exec(text)?.[1];
  if (code !== 0 || !version)
    return { name: 'libreoffice', available: false, reason: 'soffice did not answer' };
  // The pool talks to soffice through Debian's python3-uno (office-bridge.py).
  const uno = await output('/usr/bin/python3', ['-c', 'import uno']);
  if (uno.code !== 0)
    return { name: 'libreoffice', available: false, reason: 'python3-uno is not installed' };
  // Never run unsandboxed: without bubblewrap the engine is missing, with the reason (guarded).
  await requireSandbox('LibreOffice');
  return { name: 'libreoffice', available: true, version };
}

async function probeChromium(): Promise<EngineStatus> {
  const { code, text } = await output(CHROMIUM, ['--version']);
  const version = /Chromium (\d+(?:\.\d+)+)/.exec(text)?.[1];
  if (code !== 0 || !version)
    return { name: 'chromium', available: false, reason: `${CHROMIUM} did not answer` };
  await requireSandbox('Chromium');
  return { name: 'chromium', available: true, version };
}

/** Network namespaces are reported like an engine so /readyz shows whether engines are isolated. */
async function probeNetns(): Promise<EngineStatus> {
  if (await probeNetworkIsolation()) return { name: 'netns', available: true, version: 'unshare --net' };
  return {
    name: 'netns',
    available: false,
    reason: 'cannot create network namespaces (needs root); ocrmypdf runs without one',
  };
}

export function probeHeavyEngines(): Promise<EngineStatus[]> {
  return Promise.all([
    guarded('ocrmypdf', probeOcrmypdf),
    guarded('tesseract', probeTesseract),
    guarded('libreoffice', probeLibreoffice),
    guarded('chromium', probeChromium),
    guarded('netns', probeNetns),
  ]);
}
