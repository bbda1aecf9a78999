// The pyHanko module of the engine list: PAdES signing and signature validation. Its probe asks the
// venv's Python for pyHanko's version, so a server without the venv reports the engine missing.
import { engineDefaults } from '../call-options.js';
import { probeVersion } from '../program.js';
import type { EngineModule } from '../types.js';
import { createPyhanko, PYHANKO_PYTHON, type Pyhanko } from './pyhanko.js';

export const pyhankoEngine: EngineModule<'pyhanko', Pyhanko> = {
  name: 'pyhanko',
  probe: async () => [
    await probeVersion({
      name: 'pyhanko',
      command: PYHANKO_PYTHON,
      args: [
        '-c',
        'import pyhanko_certvalidator; from pyhanko.version import __version__; print(__version__)',
      ],
      version: (text) => /^(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(text)?.[1],
    }),
  ],
  create: (settings) =>
    createPyhanko(engineDefaults(settings, 'pyhanko'), {
      isolateNetwork: settings.heavy.isolateNetwork,
      ...(settings.timestampAuthority ? { timestampAuthority: settings.timestampAuthority } : {}),
    }),
};
