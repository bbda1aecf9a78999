// The Ghostscript module of the engine list: lossy re-distillation (compress).
import { engineDefaults } from '../call-options.js';
import { probeVersion } from '../program.js';
import type { EngineModule } from '../types.js';
import { createGhostscript, type Ghostscript } from './ghostscript.js';

export const ghostscriptEngine: EngineModule<'ghostscript', Ghostscript> = {
  name: 'ghostscript',
  probe: async () => [
    await probeVersion({
      name: 'ghostscript',
      command: 'gs',
      args: ['--version'],
      version: (text) => /^(\d+\.\d+(?:\.\d+)?)/m.exec(text)?.[1],
    }),
  ],
  create: (settings) => createGhostscript(engineDefaults(settings, 'ghostscript')),
};
