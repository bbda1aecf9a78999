// ocrmypdf's pure parts: argv, progress, Tesseract's language list, and the network-isolation wrap
// its runs get.

import { describe, expect, it } from 'vitest';
import type { ProgressTracker } from '../../../src/engines/call-options.js';
import { ocrArgs, pdfaArgs } from '../../../src/engines/ocrmypdf/ocrmypdf.js';
import { OcrmypdfTracker } from '../../../src/engines/ocrmypdf/progress.js';
import { parseLanguages } from '../../../src/engines/ocrmypdf/tesseract.js';
import { withLimits } from '../../../src/process/limits.js';
import { LineBuffer } from '../../../src/process/line-buffer.js';

describe('ocrmypdf argv', () => {
  it('maps every option to its flag and never passes a mode-less run', () => {
    const args = ocrArgs('in.pdf', 'out.pdf', {
      languages: ['eng', 'deu'],
      mode: 'redo',
      deskew: false,
      rotatePages: true,
      imageInput: true,
      pdfa: '2',
    });
    expect(args).toEqual(
      expect.arrayContaining(['-l', 'eng+deu', '--redo-ocr', '--rotate-pages', '--image-dpi', '300']),
    );
    expect(args.join(' ')).toContain('--output-type pdfa-2');
    expect(args).not.toContain('--deskew');
  });

  it('turns OCR off for PDF/A conversion', () => {
    expect(pdfaArgs('a.pdf', 'b.pdf', '1').join(' ')).toContain('--skip-text --tesseract-timeout 0');
  });

  it('counts a page as done when the next one starts', () => {
    const seen = readingsOf(
      (lines) => new OcrmypdfTracker(lines, 3),
      ['Opened a file', '    1 Rasterize', '    1 convert', '    2 Rasterize', '    3 x', '    9 y'],
    );
    expect(seen).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
  });
});

it('reads installed languages from tesseract --list-langs without osd', () => {
  const out =
    'List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (5):\ndeu\neng\nfra\nosd\nspa\n';
  expect(parseLanguages(out)).toEqual(['deu', 'eng', 'fra', 'spa']);
});

it('wraps an isolated engine in unshare --net without forking (the pid stays the engine)', () => {
  const [file, argv] = withLimits('ocrmypdf', ['x'], { isolateNetwork: true }, null);
  expect(file).toBe('/usr/bin/setpriv');
  expect(argv).toEqual(['--pdeathsig', 'KILL', '--', '/usr/bin/unshare', '--net', '--', 'ocrmypdf', 'x']);
});

const HELPER = '/opt/quire/dist/bin/quire-exec';

it('asks the exec helper for the network namespace when the helper is built', () => {
  const [file, argv] = withLimits('ocrmypdf', ['x'], { isolateNetwork: true }, HELPER);
  expect(file).toBe(HELPER);
  expect(argv).toEqual(['--net', '--', 'ocrmypdf', 'x']);
});

/** Feeds `lines` one at a time, reading the tracker after each: the readings that changed, in order. */
function readingsOf(make: (lines: LineBuffer) => ProgressTracker, lines: string[]): [number, number][] {
  const buffer = new LineBuffer();
  const tracker = make(buffer);
  const seen: [number, number][] = [];
  for (const line of lines) {
    buffer.push(line);
    const now = tracker.read();
    const last = seen.at(-1);
    if (now && (now.done !== last?.[0] || now.total !== last?.[1])) seen.push([now.done, now.total]);
  }
  return seen;
}
