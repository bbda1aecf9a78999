// The veraPDF module of the engine list: PDF/UA and PDF/A validation through a pool of warm JVMs,
// which closing the engines stops. Available when Java, the pinned release's jars and the compiled
// worker are installed and the document sandbox can be built.
import { access } from 'node:fs/promises';
import path from 'node:path';
import { requireSandbox } from '../../process/sandbox.js';
import { observer } from '../call-options.js';
import { banner, guarded, HEAVY_PROBE_TIMEOUT_MS } from '../program.js';
import type { EngineModule, EngineStatus } from '../types.js';
import { javaRuntime, VERAPDF_JARS, VERAPDF_VERSION, WORKER_CLASSES } from './java.js';
import { createVerapdf, type Verapdf } from './verapdf.js';

function probeVerapdf(): Promise<EngineStatus> {
  return guarded('verapdf', async () => {
    const java = await javaRuntime().catch(() => undefined);
    if (!java) return { name: 'verapdf', available: false, reason: 'java is not installed' };
    const { code } = await banner(java.binary, ['-version'], HEAVY_PROBE_TIMEOUT_MS);
    if (code !== 0) return { name: 'verapdf', available: false, reason: 'java did not answer' };
    const jar = path.join(VERAPDF_JARS, `validation-model-${VERAPDF_VERSION}.jar`);
    if (!(await exists(jar)))
      return { name: 'verapdf', available: false, reason: `${VERAPDF_JARS} is missing (scripts/setup.sh)` };
    if (!(await exists(path.join(WORKER_CLASSES, 'VeraWorker.class'))))
      return {
        name: 'verapdf',
        available: false,
        reason: 'the veraPDF worker is not built (scripts/build-helpers.sh)',
      };
    // Never run unsandboxed: without bubblewrap the engine is missing, with the reason (guarded).
    await requireSandbox('veraPDF');
    return { name: 'verapdf', available: true, version: VERAPDF_VERSION };
  });
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

export const verapdfEngine: EngineModule<'verapdf', Verapdf> = {
  name: 'verapdf',
  probe: async () => [await probeVerapdf()],
  create: (settings) =>
    createVerapdf({
      ...settings.heavy.validator,
      workRoot: path.join(settings.heavy.workRoot, 'verapdf'),
      memoryBytes: settings.memoryBytes,
      ...observer(settings, 'verapdf'),
    }),
  close: (verapdf) => verapdf.close(),
};
