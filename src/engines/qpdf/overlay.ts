// qpdf adapter for stamping: lays the pages of a small generated PDF over (or under) pages of the
// input with `--overlay`/`--underlay` (qpdf manual, "Overlay and Underlay"). qpdf streams the
// input, so a watermark on a 200 MB document never loads that document into the service's memory.
import path from 'node:path';
import { QuireError } from '../../errors/quire-error.js';
import { LineBuffer } from '../../process/line-buffer.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { QPDF_EXIT, qpdfFailure } from './failure.js';
import { forkServerFor, viaForkServer } from './forkserver/binary.js';
import { QpdfPercentTracker } from './progress.js';

export interface StampSpec {
  /** The generated stamp PDF. */
  stamp: string;
  layer: 'over' | 'under';
  /** qpdf page range of the input pages to stamp, e.g. "1-3,7". */
  to: string;
  /**
   * qpdf page range of stamp pages, one per `to` page in order; repeats are allowed ("1,1,2"), so
   * pages of the same geometry share one stamp page (one form XObject in the output).
   */
  from: string;
}

/** `forkServer`: as for qpdfProgram (run-qpdf.ts). */
export function createQpdfOverlay(
  defaults: EngineDefaults,
  binary = 'qpdf',
  forkServer: string | null = forkServerFor(binary),
) {
  const via = viaForkServer(forkServer);
  return {
    /**
     * qpdf fits each stamp page into the destination page's trim box and turns it by the page's
     * /Rotate, so a stamp page drawn at the page's displayed size lands unscaled and upright.
     */
    async stamp(input: string, output: string, spec: StampSpec, call: EngineCallOptions): Promise<void> {
      const flag = spec.layer === 'over' ? '--overlay' : '--underlay';
      const args = [
        '--progress',
        path.resolve(input),
        flag,
        path.resolve(spec.stamp),
        `--to=${spec.to}`,
        `--from=${spec.from}`,
        '--',
        path.resolve(output),
      ];
      const lines = call.progress ? new LineBuffer() : undefined;
      if (lines) call.progress?.set(new QpdfPercentTracker(lines));
      const result = await runEngine(
        defaults,
        binary,
        args,
        toRunOptions(defaults, call, {
          ...via,
          ...(lines ? { stdoutLines: lines } : {}),
        }),
      );
      const failure = qpdfFailure(result, { passwordGiven: false });
      if (failure) throw failure;
      // Exit 3 (warnings) on a damaged input can still mean an unusable output: make sure it opens.
      if (result.exitCode === QPDF_EXIT.warnings) {
        const check = await runEngine(defaults, binary, ['--show-npages', path.resolve(output)], {
          ...toRunOptions(defaults, call, via),
          captureStdout: true,
        });
        if (check.exitCode !== 0 || !(Number.parseInt(check.stdout, 10) > 0)) {
          throw new QuireError('pdf_corrupt', 'The PDF has no usable pages');
        }
      }
    },
  };
}

export type QpdfOverlay = ReturnType<typeof createQpdfOverlay>;
