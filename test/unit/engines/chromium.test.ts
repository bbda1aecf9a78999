// Chromium's pure part: the site-file resolver that keeps a printed page inside its folder.
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SITE_ORIGIN, siteFile } from '../../../src/engines/chromium/chromium.js';

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
