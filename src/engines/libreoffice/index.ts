// The LibreOffice module of the engine list: office documents to PDF through a pool of long-lived
// instances, which closing the engines stops.
import path from 'node:path';
import { requireSandbox } from '../../process/sandbox.js';
import { observer } from '../call-options.js';
import { banner, guarded, HEAVY_PROBE_TIMEOUT_MS } from '../program.js';
import type { EngineModule, EngineStatus } from '../types.js';
import { createLibreoffice, type Libreoffice } from './libreoffice.js';

function probeLibreoffice(): Promise<EngineStatus> {
  return guarded('libreoffice', async () => {
    const { code, text } = await banner('soffice', ['--version'], HEAVY_PROBE_TIMEOUT_MS);
    const version = /LibreOffice (\d+(?:\.\d+)+)/.exec(text)?.[1];
    if (code !== 0 || !version)
      return { name: 'libreoffice', available: false, reason: 'soffice did not answer' };
    // The pool talks to soffice through Debian's python3-uno (office-bridge.py).
    const uno = await banner('/usr/bin/python3', ['-c', 'import uno'], HEAVY_PROBE_TIMEOUT_MS);
    if (uno.code !== 0)
      return { name: 'libreoffice', available: false, reason: 'python3-uno is not installed' };
    // Never run unsandboxed: without bubblewrap the engine is missing, with the reason (guarded).
    await requireSandbox('LibreOffice');
    return { name: 'libreoffice', available: true, version };
  });
}

export const libreofficeEngine: EngineModule<'libreoffice', Libreoffice> = {
  name: 'libreoffice',
  probe: async () => [await probeLibreoffice()],
  create: (settings) =>
    createLibreoffice({
      ...settings.heavy.office,
      workRoot: path.join(settings.heavy.workRoot, 'office'),
      memoryBytes: settings.memoryBytes,
      ...observer(settings, 'libreoffice'),
    }),
  close: (libreoffice) => libreoffice.close(),
};
