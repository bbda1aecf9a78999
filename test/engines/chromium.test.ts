// The shared Chromium on real binaries: several pages print at once in one browser, each from
// its own site folder, and the browser is replaced after its page budget without failing a page;
// a page costs one renderer, with no browser UI loaded beside it.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createChromium } from '../../src/engines/chromium/chromium.js';
import { A4_PRINT } from '../support/heavy-fixtures.js';
import { pageText } from '../support/pdf.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'quire-engine-chromium-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Chromium's processes below this test process, with their arguments. */
function chromiumProcesses(): { pid: number; args: string[] }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .map(([pid, ppid, program, ...args]) => ({ pid: Number(pid), ppid: Number(ppid), program, args }));
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows)
      if (ours.has(r.ppid) && !ours.has(r.pid)) {
        ours.add(r.pid);
        grew = true;
      }
  }
  return rows.filter((r) => ours.has(r.pid) && r.program === '/usr/lib/chromium/chromium');
}

/** Pids of the Chromium browser processes (not renderers or helpers) below this test process. */
function browserPids(): number[] {
  return chromiumProcesses()
    .filter((r) => !r.args.some((a) => a.startsWith('--type=')))
    .map((r) => r.pid);
}

/** The renderer processes below this test process. */
function renderers(): { pid: number; args: string[] }[] {
  return chromiumProcesses().filter((r) => r.args.includes('--type=renderer'));
}

function site(name: string, body: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'index.html'), `<!doctype html><body>${body}</body>`);
  return dir;
}

describe('the shared Chromium', () => {
  it('prints several pages at once in one browser, each from its own folder, with their page counts', async () => {
    const chromium = createChromium({
      size: 3,
      recycleAfter: 100,
      workRoot: path.join(root, 'a'),
      timeoutMs: 60_000,
    });
    try {
      const words = ['Quoll1', 'Numbat2', 'Dunnart3', 'Bettong4'];
      const results = await Promise.all(
        words.map((word, i) => {
          const breaks = '<p style="break-after: page">x</p>'.repeat(i);
          return chromium.htmlToPdf(
            site(word, `${breaks}<p>${word}</p>`),
            'index.html',
            path.join(root, `${word}.pdf`),
            A4_PRINT,
            { workDir: root },
          );
        }),
      );
      expect(results.map((r) => r.pages)).toEqual([1, 2, 3, 4]);
      words.forEach((word) => {
        const text = pageText(path.join(root, `${word}.pdf`));
        expect(text).toContain(word);
        for (const other of words.filter((w) => w !== word)) expect(text).not.toContain(other);
      });
      expect(browserPids()).toHaveLength(1);
    } finally {
      await chromium.close();
    }
  }, 120_000);

  it('prints a page with one renderer and loads no browser UI (the omnibox popup) beside it', async () => {
    const chromium = createChromium({
      size: 1,
      recycleAfter: 100,
      workRoot: path.join(root, 'c'),
      timeoutMs: 60_000,
    });
    try {
      const printing = chromium.htmlToPdf(
        site('single', '<p>Potoroo6</p>'),
        'index.html',
        path.join(root, 'single.pdf'),
        { ...A4_PRINT, waitMs: 1_500 },
        { workDir: root },
      );
      let seen: { pid: number; args: string[] }[] = [];
      for (let i = 0; i < 100 && seen.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        seen = renderers();
      }
      // Within the page's wait: its renderer is up, and any UI preloaded with its window would be too.
      await new Promise((r) => setTimeout(r, 500));
      seen = renderers();
      await printing;
      expect(seen).toHaveLength(1);
      expect(seen[0]?.args).not.toContain('--top-chrome-webui');
      expect(pageText(path.join(root, 'single.pdf'))).toContain('Potoroo6');
    } finally {
      await chromium.close();
    }
  }, 120_000);

  it('replaces the browser after its page budget, between pages', async () => {
    const chromium = createChromium({
      size: 2,
      recycleAfter: 2,
      workRoot: path.join(root, 'b'),
      timeoutMs: 60_000,
    });
    const dir = site('recycled', '<p>Wallaby5</p>');
    const print = (n: number) =>
      chromium.htmlToPdf(dir, 'index.html', path.join(root, `r${n}.pdf`), A4_PRINT, { workDir: root });
    try {
      await print(1);
      const first = browserPids();
      await print(2);
      await print(3);
      // The first browser stops as its last page's context closes, just behind that page's result.
      let second = browserPids();
      for (let i = 0; i < 20 && second.length > 1; i++) {
        await new Promise((r) => setTimeout(r, 100));
        second = browserPids();
      }
      expect(first).toHaveLength(1);
      expect(second).toHaveLength(1);
      expect(second[0]).not.toBe(first[0]);
      expect(readFileSync(path.join(root, 'r3.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
      expect(pageText(path.join(root, 'r3.pdf'))).toContain('Wallaby5');
    } finally {
      await chromium.close();
    }
  }, 120_000);
});
