// Ghostscript adapter: lossy re-distillation (pdfwrite) for compression, with per-page progress
// from its `Page N` lines. Inputs must already be decrypted: gs would need the password in argv.
import path from 'node:path';
import { LineBuffer } from '../../process/line-buffer.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { ghostscriptFailure } from './failure.js';
import { GhostscriptTracker } from './progress.js';

/** `keep` converts (e.g. to grey) without downsampling; the others follow tools.md's targets. */
export type LossyLevel = 'keep' | 'low' | 'medium' | 'high';

interface LevelSettings {
  /** Distiller preset the level starts from (fonts, colour handling, JPEG defaults). */
  preset: string;
  /** Target resolution of colour and grey images (dpi); none = no downsampling. */
  dpi?: number;
  /** Images above dpi × threshold are downsampled (tools.md: low >250→200, medium >200→144, high >100→72). */
  threshold: number;
  /** JPEG quantisation factor; larger is smaller and blurrier (Distiller's QFactor; /screen uses 0.76). */
  qFactor?: number;
}

export const LEVELS: Readonly<Record<LossyLevel, LevelSettings>> = {
  keep: { preset: '/default', threshold: 1 },
  low: { preset: '/printer', dpi: 200, threshold: 250 / 200 },
  medium: { preset: '/ebook', dpi: 144, threshold: 200 / 144 },
  high: { preset: '/screen', dpi: 72, threshold: 100 / 72, qFactor: 1.3 },
};

export interface LossyOptions {
  level: LossyLevel;
  grayscale: boolean;
}

/** The full gs argv for a lossy rewrite (exported for the argv unit test). */
export function pdfwriteArgs(input: string, output: string, options: LossyOptions): string[] {
  const level = LEVELS[options.level];
  const dpi = level.dpi;
  const images = ['Color', 'Gray'].flatMap((kind) =>
    dpi === undefined
      ? [`-dDownsample${kind}Images=false`]
      : [
          `-dDownsample${kind}Images=true`,
          `-d${kind}ImageDownsampleType=/Bicubic`,
          `-d${kind}ImageResolution=${dpi}`,
          `-d${kind}ImageDownsampleThreshold=${level.threshold.toFixed(3)}`,
        ],
  );
  const gray = options.grayscale
    ? ['-sColorConversionStrategy=Gray', '-dProcessColorModel=/DeviceGray', '-dOverrideICC=true']
    : [];
  const jpeg = level.qFactor === undefined ? [] : ['-c', distillerQFactor(level.qFactor), '-f'];
  return [
    // SAFER: the PDF may not touch files beyond its input and output; BATCH/NOPAUSE: never prompt.
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    // Route PostScript stdout to stderr so the one bounded tail holds messages and `Page N` lines.
    '-sstdout=%stderr',
    '-sDEVICE=pdfwrite',
    `-dPDFSETTINGS=${level.preset}`,
    '-dDetectDuplicateImages=true',
    '-dCompressFonts=true',
    '-dSubsetFonts=true',
    ...images,
    ...gray,
    // `%` in OutputFile is a page-number template; escape it so any path is taken literally.
    `-sOutputFile=${path.resolve(output).replaceAll('%', '%%')}`,
    ...jpeg,
    path.resolve(input),
  ];
}

function distillerQFactor(q: number): string {
  const dict = `<< /QFactor ${q} /Blend 1 /HSamples [2 1 1 2] /VSamples [2 1 1 2] >>`;
  return `<< /ColorACSImageDict ${dict} /GrayACSImageDict ${dict} >> setdistillerparams`;
}

export function createGhostscript(defaults: EngineDefaults, binary = 'gs') {
  return {
    /**
     * Re-distils `input` into `output` at `options.level`. Callers must verify the output's page
     * count: gs can exit 0 with a blank file after `Couldn't initialise file` (tools.md).
     */
    async pdfwrite(
      input: string,
      output: string,
      options: LossyOptions,
      call: EngineCallOptions,
    ): Promise<void> {
      const lines = call.progress ? new LineBuffer() : undefined;
      if (lines) call.progress?.set(new GhostscriptTracker(lines));
      const result = await runEngine(
        defaults,
        binary,
        pdfwriteArgs(input, output, options),
        toRunOptions(defaults, call, lines ? { stderrLines: lines } : {}),
      );
      const failure = ghostscriptFailure(result);
      if (failure) throw failure;
    },
  };
}

export type Ghostscript = ReturnType<typeof createGhostscript>;
