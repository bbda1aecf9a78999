// Pure parts of the heavy engines: ocrmypdf argv and progress, language parsing, ZIP entry names
// and the site-file resolver that keeps a printed page inside its folder.
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SITE_ORIGIN, siteFile } from '../../src/engines/chromium.js';
import { parseLanguages } from '../../src/engines/heavy-probes.js';
import { ocrArgs, ocrmypdfProgressTracker, pdfaArgs } from '../../src/engines/ocrmypdf.js';
import { withLimits } from '../../src/process/limits.js';
import { entryPath } from '../../src/tools/html-bundle.js';

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
    const seen: [number, number][] = [];
    const feed = ocrmypdfProgressTracker(3, (d, t) => seen.push([d, t]));
    for (const line of [
      'Opened a file',
      '    1 Rasterize',
      '    1 convert',
      '    2 Rasterize',
      '    3 x',
      '    9 y',
    ])
      feed(line);
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
  const [file, argv] = withLimits('ocrmypdf', ['x'], { isolateNetwork: true });
  expect(file).toBe('/usr/bin/setpriv');
  expect(argv).toEqual(['--pdeathsig', 'KILL', '--', '/usr/bin/unshare', '--net', '--', 'ocrmypdf', 'x']);
});

describe('ZIP entry names', () => {
  it.each(['../x', 'a/../../x', '/etc/passwd', 'C:/x', 'a\\b', 'a\0b', ''])('refuses %j', (name) => {
    expect(() => entryPath(name)).toThrow();
  });
  it('keeps ordinary nested names', () => {
    expect(entryPath('./css/site.css')).toBe('css/site.css');
  });
});

describe('site files', () => {
  it('serves files inside the folder and nothing outside it', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'quire-site-'));
    const site = path.join(root, 'site');
    await mkdir(path.join(site, 'img'), { recursive: true });
    await writeFile(path.join(site, 'img', 'a b.png'), 'x');
    await writeFile(path.join(root, 'secret.txt'), 'x');
    await symlink(path.join(root, 'secret.txt'), path.join(site, 'link.txt'));
    expect(await siteFile(site, `${SITE_ORIGIN}/img/a%20b.png`)).toBe(path.join(site, 'img', 'a b.png'));
    for (const url of [
      `${SITE_ORIGIN}/../secret.txt`,
      `${SITE_ORIGIN}/%2e%2e/secret.txt`,
      `${SITE_ORIGIN}/link.txt`,
      `${SITE_ORIGIN}/missing.css`,
      'http://127.0.0.1/img/a%20b.png',
      `file://${root}/secret.txt`,
    ])
      expect(await siteFile(site, url), url).toBeUndefined();
  });
});
