// The shared Chromium's kept tabs on real binaries: a job's tab, wiped, serves the next job of the
// same account only (its renderer reused), and nothing the first job's page left behind (storage of
// every kind, cookies, window.name, history, a cached file under the same URL, a service worker)
// reaches the second; another account's job never gets that tab, nor does a tab that hangs.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createChromium } from '../../src/engines/chromium/chromium.js';
import { A4_PRINT } from '../support/heavy-fixtures.js';
import { pageText } from '../support/pdf.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'quire-engine-chromium-reuse-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Pids of the renderer processes below this test process. */
function rendererPids(): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .map(([pid, ppid, ...args]) => ({ pid: Number(pid), ppid: Number(ppid), args }));
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows)
      if (ours.has(r.ppid) && !ours.has(r.pid)) {
        ours.add(r.pid);
        grew = true;
      }
  }
  return rows.filter((r) => ours.has(r.pid) && r.args.includes('--type=renderer')).map((r) => r.pid);
}

/**
 * A page that writes what it can see of earlier pages into its own text, then leaves a secret in
 * every place it can: local and session storage, a cookie, IndexedDB, window.name, a history
 * entry, a service worker. Its `asset.js` and `style.css` say which site they came from.
 */
const PROBE = `<!doctype html><html><head><link rel="stylesheet" href="style.css"><script src="asset.js"></script></head>
<body><p id="out">waiting</p><script>
(async () => {
  const seen = [
    'ls=' + localStorage.getItem('k'),
    'ss=' + sessionStorage.getItem('k'),
    'ck=' + (document.cookie || 'none'),
    'wn=' + (window.name || 'none'),
    'hl=' + history.length,
    'js=' + window.asset,
    'sw=' + (navigator.serviceWorker && navigator.serviceWorker.controller ? 'controlled' : 'none'),
  ];
  // Written at once; IndexedDB's answer is added when it comes (the print waits for it).
  document.getElementById('out').textContent = seen.join(' ');
  const db = await new Promise((resolve) => {
    const open = indexedDB.open('probe', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('s');
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => resolve(undefined);
  });
  const old = db && await new Promise((resolve) => {
    const get = db.transaction('s').objectStore('s').get('k');
    get.onsuccess = () => resolve(get.result);
    get.onerror = () => resolve(undefined);
  });
  seen.push('idb=' + (old || 'none'));
  localStorage.setItem('k', 'LeftLocal');
  sessionStorage.setItem('k', 'LeftSession');
  document.cookie = 'k=LeftCookie; max-age=3600';
  window.name = 'LeftName';
  history.pushState({}, '', '#LeftHistory');
  if (db) db.transaction('s', 'readwrite').objectStore('s').put('LeftIndexed', 'k');
  if (navigator.serviceWorker) navigator.serviceWorker.register('sw.js').catch(() => {});
  document.getElementById('out').textContent = seen.join(' ');
})();
</script></body></html>`;

function site(name: string, marker: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'index.html'), PROBE);
  writeFileSync(path.join(dir, 'asset.js'), `window.asset = '${marker}Script';`);
  writeFileSync(path.join(dir, 'style.css'), `body::after { content: "${marker}Style"; }`);
  writeFileSync(path.join(dir, 'sw.js'), 'self.onfetch = (e) => e.respondWith(new Response("LeftWorker"));');
  return dir;
}

/** What a page saw, as `key=value` pairs, with the words its files added. */
function seen(pdf: string): Record<string, string> {
  const text = pageText(pdf);
  const pairs = Object.fromEntries([...text.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  return { ...pairs, style: /(\w+)Style/.exec(text)?.[1] ?? 'none' };
}

describe('kept tabs of the shared Chromium', () => {
  it("reuse a tab for the same account's next job with nothing of the first job left, and never for another account", async () => {
    const chromium = createChromium({
      size: 1,
      recycleAfter: 100,
      keepTabMs: 60_000,
      workRoot: path.join(root, 'w'),
      timeoutMs: 60_000,
    });
    const print = async (account: string, dir: string, name: string) => {
      const out = path.join(root, `${name}.pdf`);
      await chromium.htmlToPdf(
        dir,
        'index.html',
        out,
        { ...A4_PRINT, waitMs: 1_500 },
        { workDir: root },
        account,
      );
      // The slot (and the tab's wipe) is released just behind the result.
      await new Promise((r) => setTimeout(r, 500));
      return { seen: seen(out), renderers: rendererPids() };
    };
    try {
      const first = await print('alice', site('a1', 'Old'), 'a1');
      const second = await print('alice', site('a2', 'New'), 'a2');
      const other = await print('bob', site('b1', 'Bob'), 'b1');

      const fresh = {
        ls: 'null',
        ss: 'null',
        ck: 'none',
        wn: 'none',
        hl: first.seen.hl,
        sw: 'none',
        idb: 'none',
      };
      expect(first.seen).toMatchObject({ ...fresh, js: 'OldScript', style: 'Old' });
      // The same renderer printed it, and saw nothing of the first job; its own files, not the cached ones.
      expect(second.renderers).toEqual(first.renderers);
      expect(second.seen).toMatchObject({ ...fresh, js: 'NewScript', style: 'New' });
      // Another account: a renderer of its own (alice's kept tab was closed to make room).
      expect(other.renderers).toHaveLength(1);
      expect(other.renderers).not.toEqual(first.renderers);
      expect(other.seen).toMatchObject({ ...fresh, js: 'BobScript', style: 'Bob' });
    } finally {
      await chromium.close();
    }
  }, 120_000);

  it('close a tab whose page hangs its renderer after printing instead of keeping it', async () => {
    const chromium = createChromium({
      size: 1,
      recycleAfter: 100,
      keepTabMs: 60_000,
      workRoot: path.join(root, 'h'),
      timeoutMs: 60_000,
    });
    const hang = path.join(root, 'hang');
    mkdirSync(hang);
    writeFileSync(
      path.join(hang, 'index.html'),
      "<p>Hang7</p><script>addEventListener('afterprint', () => { for (;;) {} });</script>",
    );
    try {
      await chromium.htmlToPdf(
        hang,
        'index.html',
        path.join(root, 'hang.pdf'),
        A4_PRINT,
        { workDir: root },
        'carol',
      );
      const hung = rendererPids();
      const after = path.join(root, 'after.pdf');
      await chromium.htmlToPdf(site('c2', 'Next'), 'index.html', after, A4_PRINT, { workDir: root }, 'carol');
      expect(pageText(path.join(root, 'hang.pdf'))).toContain('Hang7');
      expect(seen(after)).toMatchObject({ js: 'NextScript', style: 'Next' });
      expect(hung).toHaveLength(1);
      let left = rendererPids();
      for (let i = 0; i < 50 && left.includes(hung[0]!); i++) {
        await new Promise((r) => setTimeout(r, 100));
        left = rendererPids();
      }
      expect(left).not.toContain(hung[0]);
    } finally {
      await chromium.close();
    }
  }, 120_000);
});
