// The Chromium module of the engine list: HTML to PDF through a pool of long-lived headless
// browsers, which closing the engines stops.
import path from 'node:path';
import { requireSandbox } from '../../process/sandbox.js';
import { observer } from '../call-options.js';
import { banner, guarded, HEAVY_PROBE_TIMEOUT_MS } from '../program.js';
import type { EngineModule, EngineStatus } from '../types.js';
import { CHROMIUM } from './browser-instance.js';
import { type Chromium, createChromium } from './chromium.js';

function probeChromium(): Promise<EngineStatus> {
  return guarded('chromium', async () => {
    const { code, text } = await banner(CHROMIUM, ['--version'], HEAVY_PROBE_TIMEOUT_MS);
    const version = /Chromium (\d+(?:\.\d+)+)/.exec(text)?.[1];
    if (code !== 0 || !version)
      return { name: 'chromium', available: false, reason: `${CHROMIUM} did not answer` };
    // Never run unsandboxed: without bubblewrap the engine is missing, with the reason (guarded).
    await requireSandbox('Chromium');
    return { name: 'chromium', available: true, version };
  });
}

export const chromiumEngine: EngineModule<'chromium', Chromium> = {
  name: 'chromium',
  probe: async () => [await probeChromium()],
  create: (settings) =>
    createChromium({
      ...settings.heavy.browser,
      workRoot: path.join(settings.heavy.workRoot, 'browser'),
      ...observer(settings, 'chromium'),
    }),
  close: (chromium) => chromium.close(),
};
