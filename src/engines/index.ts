// The engine list: every program Quire drives is one module here (its name, start-up probe and
// factory). Probing, building and closing the engines walk this list; tests may append modules.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { probeNetworkIsolation } from '../process/network-isolation.js';
import { chromiumEngine } from './chromium/index.js';
import { ghostscriptEngine } from './ghostscript/index.js';
import { libreofficeEngine } from './libreoffice/index.js';
import { ocrmypdfEngine } from './ocrmypdf/index.js';
import { pdf2docxEngine } from './pdf2docx/index.js';
import { pdfdiffEngine } from './pdfdiff/index.js';
import { popplerEngine } from './poppler/index.js';
import { guarded } from './program.js';
import { pyhankoEngine } from './pyhanko/index.js';
import { pymupdfEngine } from './pymupdf/index.js';
import { pymupdf4llmEngine } from './pymupdf4llm/index.js';
import { qpdfEngine, qpdfOverlayEngine } from './qpdf/index.js';
import type { EngineModule, EngineSettings, EngineStatus, HeavyEngineOptions } from './types.js';
import { verapdfEngine } from './verapdf/index.js';

export const engineModules = [
  qpdfEngine,
  qpdfOverlayEngine,
  ghostscriptEngine,
  popplerEngine,
  ocrmypdfEngine,
  libreofficeEngine,
  chromiumEngine,
  pyhankoEngine,
  pymupdfEngine,
  pdf2docxEngine,
  pdfdiffEngine,
  verapdfEngine,
  pymupdf4llmEngine,
] as const;

/** What a tool may call: each module's adapter under the module's name. */
export type Engines = {
  [M in (typeof engineModules)[number] as M['name']]: ReturnType<M['create']>;
};

/** For callers that build engines without a config (engine-tier tests): one of each, lazily. */
function defaultHeavy(timeoutMs: number): HeavyEngineOptions {
  return {
    isolateNetwork: false,
    workRoot: path.join(tmpdir(), 'quire-pools'),
    ocrTimeoutMs: timeoutMs,
    office: { size: 1, recycleAfter: 50, timeoutMs },
    browser: { size: 1, recycleAfter: 50, timeoutMs },
    validator: { size: 1, recycleAfter: 200, timeoutMs },
  };
}

export interface EngineOptions extends Omit<EngineSettings, 'heavy'> {
  /** Defaults to one lazily started instance of each pooled engine (engine-tier tests). */
  heavy?: HeavyEngineOptions;
  /** Modules built alongside the list, under their own names: the fault-injection tier's fake engine. */
  extra?: readonly EngineModule[];
}

/** Builds every module's adapter with the configured limits. */
export function createEngines(opts: EngineOptions): Engines {
  const { extra = [], heavy, ...limits } = opts;
  const settings: EngineSettings = { ...limits, heavy: heavy ?? defaultHeavy(opts.timeoutMs) };
  const modules: readonly EngineModule[] = [...engineModules, ...extra];
  return Object.fromEntries(modules.map((m) => [m.name, m.create(settings)])) as Engines;
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

/** Runs each module's probe; a missing program is `available: false` with a reason, never a throw. */
export async function probeEngines(extra: readonly EngineModule[] = []): Promise<EngineStatus[]> {
  const modules: readonly EngineModule[] = [...engineModules, ...extra];
  const [statuses, netns] = await Promise.all([
    Promise.all(modules.map((m) => m.probe())),
    guarded('netns', probeNetns),
  ]);
  return [...statuses.flat(), netns];
}

/** Stops what the modules keep running between jobs (the LibreOffice and Chromium pools). */
export async function closeEngines(engines: Engines, extra: readonly EngineModule[] = []): Promise<void> {
  const modules: readonly EngineModule[] = [...engineModules, ...extra];
  const built = engines as Record<string, unknown>;
  await Promise.all(modules.map((m) => m.close?.(built[m.name])));
}
