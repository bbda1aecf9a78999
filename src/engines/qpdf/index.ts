// The qpdf modules of the engine list: the structural operations and stamping (overlay/underlay),
// two adapters of one program, so one probe answers for both.
import { engineDefaults } from '../call-options.js';
import { probeVersion } from '../program.js';
import type { EngineModule } from '../types.js';
import { forkServerFor } from './forkserver/binary.js';
import { createQpdfOverlay, type QpdfOverlay } from './overlay.js';
import { createQpdf, type Qpdf } from './qpdf.js';

export const qpdfEngine: EngineModule<'qpdf', Qpdf> = {
  name: 'qpdf',
  probe: async () => [
    await probeVersion({
      name: 'qpdf',
      command: 'qpdf',
      args: ['--version'],
      version: (text) => /qpdf version (\S+)/.exec(text)?.[1],
    }),
  ],
  create: (settings) =>
    createQpdf(engineDefaults(settings, 'qpdf'), 'qpdf', forkServerFor('qpdf', settings.qpdfForkServer)),
};

/** Stamping reports no status of its own: its availability is qpdf's. */
export const qpdfOverlayEngine: EngineModule<'qpdfOverlay', QpdfOverlay> = {
  name: 'qpdfOverlay',
  probe: async () => [],
  create: (settings) =>
    createQpdfOverlay(
      engineDefaults(settings, 'qpdf'),
      'qpdf',
      forkServerFor('qpdf', settings.qpdfForkServer),
    ),
};
