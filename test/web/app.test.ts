// The web app in a real Chromium against a real server (production wiring, real engines): every flow
// of issue 28 at `/` (flow-suite.ts, run again under `/quire/` by sub-path.test.ts), and what is only
// checked once: serving under the CSP, the first-load budget, a refused key, search by synonym,
// compress by keyboard only, a ZIP result's listing, recipes renamed, exported, imported and deleted,
// and axe on every screen in light and dark at 1100 and 375 px, with the README's screenshots.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, FileChooser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { corpusFile, repoRoot } from '../support/corpus.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { axeViolations, launchBrowser, openPage, type TestPage } from './browser.js';
import { describeFlows } from './flow-suite.js';
import { chooseFiles, openTool, runAndWait, signInWithLink } from './flows.js';
import { recipeManageFlow } from './recipe-flow.js';
import { createJob, madeForScreens, screens, screenshotNames } from './screens.js';

const FILE_LIMIT = 1_000_000;
const SCHEMES = ['light', 'dark'] as const;
type Scheme = (typeof SCHEMES)[number];
const scan = corpusFile('ocrmypdf__c02-22.pdf');

let server: TestServer;
let browser: Browser;
let key: string;
let app: string;
const pages: TestPage[] = [];

async function page(options: Parameters<typeof openPage>[1] = {}): Promise<Page> {
  const opened = await openPage(browser, options);
  pages.push(opened);
  return opened.page;
}

beforeAll(async () => {
  server = await startTestServer({
    QUIRE_UPLOAD_MAX_FILE_BYTES: String(FILE_LIMIT),
    QUIRE_LOG_LEVEL: 'warn',
  });
  ({ key } = await server.newAccount());
  app = `${server.url}/`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  for (const opened of pages) expect(opened.cspViolations).toEqual([]);
});

describe('serving', () => {
  it('serves the app at / under a CSP without inline scripts or eval, and JSON to programs', async () => {
    const html = await fetch(app, { headers: { accept: 'text/html' } });
    const csp = html.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    const body = await html.text();
    expect(body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(body).not.toMatch(/https?:\/\//);
    expect(body).toMatch(/src="\.\/assets\//);
    const json = await fetch(app, { headers: { accept: 'application/json' } });
    expect(((await json.json()) as { links: object }).links).toHaveProperty('openapi');
  });

  it('keeps the first load within 250 KB gzipped, with pdf.js outside it', () => {
    const measured = JSON.parse(readFileSync(path.join(repoRoot, 'web/dist/first-load.json'), 'utf8')) as {
      gzip_bytes: number;
      files: Record<string, number>;
    };
    expect(measured.gzip_bytes).toBeLessThanOrEqual(250_000);
    expect(Object.keys(measured.files).join()).not.toMatch(/pdf/);
    const index = readFileSync(path.join(repoRoot, 'web/dist/index.html'), 'utf8');
    expect(index).not.toMatch(/pdf/);
  });
});

describeFlows('at /', () => ({ app, key, page }), { tus: false });

describe('once, at /', () => {
  it('refuses a wrong key with a message and keeps nothing', async () => {
    const p = await page();
    await p.goto(app);
    await p.getByLabel('API key').fill('qk_live_AAAAAAAA_wrongwrongwrongwrongwrongwrongwrongwrongwro');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => p.getByRole('alert').textContent()).toMatch(/not accepted/);
    expect(await p.evaluate('sessionStorage.length + localStorage.length')).toBe(0);
  });

  it('groups tools as the catalogue does and finds them by a synonym', async () => {
    const p = await page();
    await signInWithLink(p, app, key);
    for (const group of ['Pages and structure', 'OCR and conversion', 'Signatures'])
      await p.getByRole('heading', { name: group }).waitFor();
    await p.getByLabel('Search tools').fill('shrink');
    expect(await p.locator('#tool-list a').allTextContents()).toEqual([
      expect.stringMatching(/^Compress a PDF/),
    ]);
  });

  it('compresses using the keyboard only', async () => {
    const p = await page();
    await p.goto(app);
    await tabTo(p, 'input#api-key');
    await p.keyboard.type(key);
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'What do you want to do?' }).waitFor();
    await tabTo(p, 'input#tool-search');
    await p.keyboard.type('compress');
    await tabTo(p, 'a[href="#/tools/compress"]');
    await p.keyboard.press('Enter');
    // The tool's form is whole (its options come with the tool's schema) before the file input is
    // focused: a form still rendering can replace the focused input, and Space then opens nothing.
    await p.locator('select#opt-level').waitFor();
    const chooser = await chooseByKeyboard(p);
    await chooser.setFiles(scan);
    await tabTo(p, 'select#opt-level');
    await p.keyboard.type('high');
    expect(await p.locator('select#opt-level').inputValue()).toBe('high');
    await tabTo(p, 'button[type="submit"]');
    await p.keyboard.press('Enter');
    await p.getByRole('link', { name: /^Download / }).waitFor({ timeout: 90_000 });
    await tabTo(p, 'a[download]');
    const [download] = await Promise.all([p.waitForEvent('download'), p.keyboard.press('Enter')]);
    expect(await download.failure()).toBeNull();
  });

  it('lists the files of a ZIP result', async () => {
    const p = await page();
    await signInWithLink(p, app, key);
    await openTool(p, app, 'split');
    await chooseFiles(p, [corpusFile('pypdf-samples__pdflatex-4-pages.pdf')]);
    expect(await runAndWait(p)).toBe('succeeded');
    const list = p.getByRole('list', { name: 'Files in the ZIP' });
    await list.waitFor();
    const names = await list.getByRole('listitem').allTextContents();
    expect(names).toHaveLength(4);
    expect(names.every((name) => /\.pdf /.test(name))).toBe(true);
  });

  it('renames, exports, imports and deletes recipes on the server, with refusals next to their fields', async () => {
    await recipeManageFlow(await page(), app, key);
  });
});

describe('every screen, light and dark', () => {
  it('has no serious or critical axe violations, fits 375 px and trips no CSP directive', async () => {
    const made = await madeForScreens(app, key, FILE_LIMIT);
    const queued = await startTestServer({ QUIRE_LOG_LEVEL: 'warn' }, { workers: false });
    const queueKey = (await queued.newAccount()).key;
    const queue = {
      app: `${queued.url}/`,
      key: queueKey,
      job: await createJob(`${queued.url}/`, queueKey, { tool: 'compress' }, scan),
    };
    onTestFinished(async () => {
      await queued.close();
      for (const file of [made.tooBig, made.broken])
        await rm(path.dirname(file), { recursive: true, force: true });
    });
    const found: string[] = [];
    const check = async (p: Page, where: string) => {
      found.push(...(await axeViolations(p)).map((v) => `${where}: ${v}`));
      const overflow = await p.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      if ((overflow as number) > 0) found.push(`${where}: ${overflow}px wider than the window`);
    };
    // One page per width; each screen is brought into its state once and looked at in both schemes
    // (the media feature switched in place), which halves the preparing.
    const both = async (p: Page, where: string, then?: (scheme: Scheme) => Promise<void>) => {
      for (const scheme of SCHEMES) {
        await p.emulateMedia({ colorScheme: scheme });
        await check(p, `${scheme}/${where}`);
        await then?.(scheme);
      }
    };
    for (const width of [1100, 375]) {
      const opened = await openPage(browser, { width });
      pages.push(opened);
      const p = opened.page;
      await p.goto(app);
      await p.getByLabel('API key').waitFor();
      await both(p, `${width}/sign-in`);
      await p.getByLabel('API key').fill('qk_live_AAAAAAAA_wrong');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.locator('#signin-error').waitFor();
      await both(p, `${width}/sign-in refused`);
      await p.emulateMedia({ colorScheme: 'light' });
      await signInWithLink(p, app, key);
      for (const screen of screens(made)) {
        await p.goto(`${app}${screen.hash}`);
        await p.locator('main h1').first().waitFor();
        await screen.prepare?.(p);
        await both(p, `${width}/${screen.name}`, async (scheme) => {
          if (width === 1100 && screen.screenshot) await screenshot(p, `${screen.name}-${scheme}`);
        });
      }
      // A job that stays queued (its server runs no worker): the progress screen with Cancel, for as
      // long as axe needs, which a running job on an idle machine does not give.
      await signInWithLink(p, queue.app, queue.key);
      await p.goto(`${queue.app}#/jobs/${queue.job}`);
      await p.locator('.progress-box .badge').filter({ hasText: 'queued' }).waitFor();
      await p.getByRole('button', { name: 'Cancel job' }).waitFor();
      await both(p, `${width}/job-queued`);
      expect(opened.cspViolations).toEqual([]);
    }
    expect(found).toEqual([]);
  }, 180_000);

  it('shows in the README every screenshot the test writes, and no other', async () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const shown = [...readme.matchAll(/docs\/screenshots\/([\w-]+\.png)/g)].map((m) => m[1]);
    const written = screenshotNames({
      pdfJob: '',
      zipJob: '',
      failedJob: '',
      infoJob: '',
      tooBig: '',
      broken: '',
    });
    expect([...new Set(shown)].sort()).toEqual([...written].sort());
    for (const name of written) expect(existsSync(path.join(repoRoot, 'docs/screenshots', name))).toBe(true);
  });
});

/** Presses Tab until the focused element matches `selector` (at most 60 times). */
/**
 * Space on the focused file input opens the chooser. On a loaded machine the press was once lost
 * (no chooser in 30 s), so it is pressed again, still from the keyboard, up to three times.
 */
async function chooseByKeyboard(p: Page): Promise<FileChooser> {
  for (let attempt = 0; attempt < 3; attempt++) {
    await tabTo(p, 'input#file-input');
    const opened = p.waitForEvent('filechooser', { timeout: 10_000 }).catch(() => undefined);
    await p.keyboard.press('Space');
    const chooser = await opened;
    if (chooser) return chooser;
  }
  throw new Error('Space on the file input never opened a file chooser');
}

async function tabTo(p: Page, selector: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (await p.evaluate(`!!document.activeElement?.matches(${JSON.stringify(selector)})`)) return;
    await p.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/**
 * The README's screenshots: written to docs/screenshots/ when QUIRE_WRITE_SCREENSHOTS=1 (to update
 * the committed ones), else under .tmp/ so a test run leaves the checkout as it was.
 */
async function screenshot(p: Page, name: string): Promise<void> {
  const dir =
    process.env.QUIRE_WRITE_SCREENSHOTS === '1'
      ? path.join(repoRoot, 'docs/screenshots')
      : path.join(repoRoot, '.tmp/screenshots');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.png`), await p.screenshot({ fullPage: false }));
}
