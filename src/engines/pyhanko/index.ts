// The pyHanko module of the engine list: PAdES signing and signature validation. Its probe reads
// pyHanko's and its validator's versions from the venv, so a server without the venv reports the
// engine missing.
import { engineDefaults } from '../call-options.js';
import { guarded } from '../program.js';
import { installedVersions } from '../python-package.js';
import type { EngineModule } from '../types.js';
import { createPyhanko, PYHANKO_VENV, type Pyhanko } from './pyhanko.js';

export const pyhankoEngine: EngineModule<'pyhanko', Pyhanko> = {
  name: 'pyhanko',
  probe: async () => [
    await guarded('pyhanko', async () => {
      const version = (await installedVersions(PYHANKO_VENV, ['pyhanko', 'pyhanko-certvalidator']))?.[0];
      if (!version)
        return { name: 'pyhanko', available: false, reason: `pyHanko is not installed in ${PYHANKO_VENV}` };
      return { name: 'pyhanko', available: true, version };
    }),
  ],
  create: (settings) =>
    createPyhanko(engineDefaults(settings, 'pyhanko'), {
      isolateNetwork: settings.heavy.isolateNetwork,
      ...(settings.timestampAuthority ? { timestampAuthority: settings.timestampAuthority } : {}),
    }),
};
