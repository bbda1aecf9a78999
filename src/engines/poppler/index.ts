// The poppler-utils module of the engine list: document facts, text, images and rendering.
import { engineDefaults } from '../call-options.js';
import { probeVersion } from '../program.js';
import type { EngineModule } from '../types.js';
import { createPoppler, type Poppler } from './poppler.js';

export const popplerEngine: EngineModule<'poppler', Poppler> = {
  name: 'poppler',
  probe: async () => [
    await probeVersion({
      name: 'poppler',
      command: 'pdfinfo',
      args: ['-v'],
      // pdfinfo prints its banner on stderr.
      version: (text) => /pdfinfo version (\S+)/.exec(text)?.[1],
    }),
  ],
  create: (settings) => createPoppler(engineDefaults(settings, 'poppler')),
};
