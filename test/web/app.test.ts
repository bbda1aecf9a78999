// The web app in a real Chromium against a real server (production wiring, real engines): sign-in both
// ways, compress by keyboard only, merge after reordering, the protect password kept out of storage and
// of every request but the job's, inline and pre-upload refusals, axe on every screen in light and dark,
// the CSP never tripped, and the first-load budget.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, repoRoot } from '../support/corpus.js';
import { concatPdfs, imagePdf, textPdf } from '../support/heavy-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { axeViolations, launchBrowser, openPage, type TestPage } from './browser.js';
import {
  chooseFiles,
  compressFlow,
  downloadResult,
  mergeFlow,
  openTool,
  pageTexts,
  runAndWait,
  signInWithForm,
  signInWithLink,
} from './flows.js';

const FILE_LIMIT = 1_000_000;
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

describe('sign-in', () => {
  it('keeps a key from the form in sessionStorage, or in localStorage with "remember me"', async () => {
    const p = await page();
    await signInWithForm(p, app, key);
    expect(
      await p.evaluate('[sessionStorage.getItem("quire.apiKey"), localStorage.getItem("quire.apiKey")]'),
    ).toEqual([key, null]);
    const q = await page();
    await signInWithForm(q, app, key, true);
    expect(await q.evaluate('localStorage.getItem("quire.apiKey")')).toBe(key);
  });

  it('refuses a wrong key with a message and keeps nothing', async () => {
    const p = await page();
    await p.goto(app);
    await p.getByLabel('API key').fill('qk_live_AAAAAAAA_wrongwrongwrongwrongwrongwrongwrongwrongwro');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => p.getByRole('alert').textContent()).toMatch(/not accepted/);
    expect(await p.evaluate('sessionStorage.length + localStorage.length')).toBe(0);
  });

  it('takes the key from a sign-in link and strips it from the address bar and history', async () => {
    const p = await page();
    const sent: string[] = [];
    p.on('request', (request) => sent.push(request.url()));
    await signInWithLink(p, app, key);
    expect(p.url()).toBe(app);
    expect(await p.evaluate('sessionStorage.getItem("quire.apiKey")')).toBe(key);
    // The fragment never travels: no request URL carries the key.
    expect(sent.filter((url) => url.includes(key))).toEqual([]);
    await p.goBack().catch(() => undefined);
    expect(p.url()).not.toContain(key);
  });
});

describe('tools', () => {
  it('compresses a corpus PDF and downloads a smaller file', async () => {
    const p = await page();
    await signInWithLink(p, app, key);
    await compressFlow(p, app, scan);
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
    await tabTo(p, 'input#file-input');
    const [chooser] = await Promise.all([p.waitForEvent('filechooser'), p.keyboard.press('Space')]);
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

  it('merges three files in the order set in the drop zone', async () => {
    const p = await page();
    await signInWithLink(p, app, key);
    await mergeFlow(p, app, [
      textPdf('alpha.pdf', ['ALPHA']),
      textPdf('bravo.pdf', ['BRAVO']),
      textPdf('charlie.pdf', ['CHARLIE']),
    ]);
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

  it('shows a malformed page range next to its field before sending anything', async () => {
    const p = await page();
    await signInWithLink(p, app, key);
    await openTool(p, app, 'rotate');
    const field = p.getByLabel('Pages', { exact: true });
    await field.fill('1-x');
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
    const error = p.locator(`#${describedBy.split(' ').find((id) => id.endsWith('-error'))}`);
    expect(await error.textContent()).toMatch(/Pages is not valid/);
  });

  it('refuses a file over the plan limit before uploading a byte', async () => {
    const p = await page();
    await signInWithLink(p, app, key);
    await openTool(p, app, 'compress');
    const sent: string[] = [];
    p.on('request', (request) => sent.push(`${request.method()} ${request.url()}`));
    await p.locator('#file-input').setInputFiles({
      name: 'big.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(FILE_LIMIT + 1)]),
    });
    await expect.poll(() => p.getByRole('alert').first().textContent()).toMatch(/takes files up to 1.0 MB/);
    expect(await p.locator('.file-list li').count()).toBe(0);
    expect(sent.filter((s) => s.startsWith('POST') || s.startsWith('PATCH'))).toEqual([]);
  });

  it('keeps the protect password out of storage and of every request but the job’s', async () => {
    const p = await page();
    const password = 'Pw-only-in-the-job-7f3a';
    const carrying: string[] = [];
    p.on('request', (request) => {
      const body = request.postDataBuffer()?.toString('latin1') ?? '';
      const headers = JSON.stringify(request.headers());
      if ([request.url(), body, headers].some((text) => text.includes(password)))
        carrying.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    await signInWithLink(p, app, key);
    await openTool(p, app, 'protect');
    await chooseFiles(p, [corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')]);
    const field = p.getByLabel('User password');
    expect(await field.getAttribute('type')).toBe('password');
    await field.fill(password);
    expect(await runAndWait(p)).toBe('succeeded');
    // The job got it: the result needs a password to open (qpdf exit code 0 = yes).
    execFileSync('qpdf', ['--requires-password', await downloadResult(p)]);
    // Chromium hands a multipart body with a file part to no observer, so the job's request shows as
    // not carrying it here; every other request (the ones Chromium shows whole) must not.
    expect(carrying.filter((request) => request !== 'POST /api/v1/jobs')).toEqual([]);
    const stored = await p.evaluate(
      'JSON.stringify([{...localStorage}, {...sessionStorage}, document.cookie])',
    );
    expect(stored).not.toContain(password);
    expect(await p.content()).not.toContain(password);
  });
});

describe('page organizer', () => {
  it('reorders, rotates and deletes pages, applied as one server job checked with qpdf', async () => {
    const source = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');
    const p = await page();
    await signInWithLink(p, app, key);
    await p.goto(`${app}#/organize`);
    await p.getByLabel('PDF to organize').setInputFiles(source);
    await p.getByRole('img', { name: 'Page 4' }).waitFor();
    for (let i = 0; i < 3; i++) await p.getByRole('button', { name: 'Earlier page 4' }).click();
    await p.getByRole('button', { name: 'Rotate page 2' }).click();
    await p.getByRole('button', { name: 'Delete page 3' }).click();
    await p.getByRole('button', { name: 'Zoom page 1' }).click();
    await p.getByRole('button', { name: 'Close zoom' }).click();
    await p.getByRole('button', { name: 'Apply' }).click();
    await expect
      .poll(() => p.locator('.progress-box .badge').textContent(), { timeout: 60_000 })
      .toBe('succeeded');
    const result = await downloadResult(p);
    execFileSync('qpdf', ['--check', result]);
    const before = pageTexts(source);
    expect(pageTexts(result)).toEqual([before[3], before[0], before[1]]);
    const rotations = JSON.parse(
      execFileSync('qpdf', ['--json', '--json-key=pages', result], { encoding: 'utf8' }),
    ).pages.map((page: { object: string }) => page.object);
    const rotate = (n: number) =>
      Number(
        /\/Rotate (\d+)/.exec(
          execFileSync('qpdf', [`--show-object=${rotations[n].split(' ')[0]}`, result], { encoding: 'utf8' }),
        )?.[1] ?? 0,
      );
    expect([rotate(0), rotate(1), rotate(2)]).toEqual([0, 0, 90]);
  });
});

describe('recipes', () => {
  it('builds a three-step recipe, saves it, reloads, runs it on two files as a batch and downloads the ZIP', async () => {
    const p = await page();
    await signInWithLink(p, app, key);
    await p.goto(`${app}#/recipes`);
    await p.getByLabel('Recipe name').fill('Turn, shrink, web');
    for (const tool of ['Rotate pages', 'Compress a PDF', 'Optimize for fast web view']) {
      await p.getByLabel('Tool for a new step').selectOption({ label: tool });
      await p.getByRole('button', { name: 'Add step' }).click();
    }
    await p.locator('#step1-angle').selectOption('90');
    await p.locator('#step2-level').selectOption('low');
    await p.getByRole('button', { name: 'Save recipe' }).click();
    await p.reload();
    await p.getByRole('button', { name: 'Open Turn, shrink, web' }).click();
    expect(await p.locator('#step1-angle').inputValue()).toBe('90');
    expect(await p.locator('.steps > li h2').allTextContents()).toEqual([
      'Step 1: rotate',
      'Step 2: compress',
      'Step 3: linearize',
    ]);
    await chooseFiles(p, [textPdf('r1.pdf', ['ONE']), textPdf('r2.pdf', ['TWO'])]);
    await p.getByRole('button', { name: 'Run the recipe' }).click();
    const link = p.getByRole('link', { name: 'Download the ZIP' });
    await link.waitFor({ timeout: 90_000 });
    const [download] = await Promise.all([p.waitForEvent('download'), link.click()]);
    const zip = (await download.path()) ?? '';
    const listing = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
    expect(listing).toHaveLength(2);
    const stored = await p.evaluate('localStorage.getItem("quire.recipes")');
    expect(String(stored)).not.toMatch(/%PDF/);
  });
});

describe('jobs', () => {
  let scanned: string;
  beforeAll(() => {
    const text = textPdf('ocr-source.pdf', ['Quire reads this page', 'line two of the scan']);
    const page = imagePdf(text, 'ocr-page.pdf');
    scanned = concatPdfs([page, page, page, page], 'ocr-scan.pdf');
  });

  it('shows OCR progress moving, in a live region, up to the result', async () => {
    const p = await page();
    await signInWithLink(p, app, key);
    await openTool(p, app, 'ocr');
    await chooseFiles(p, [scanned]);
    await p.getByLabel('Mode').selectOption('force');
    await p.getByRole('button', { name: /^Run / }).click();
    const bar = p.getByRole('progressbar', { name: 'Job progress' });
    await bar.waitFor();
    expect(await p.locator('.progress-box').getAttribute('aria-live')).toBe('polite');
    const seen: number[] = [];
    await expect
      .poll(
        async () => {
          seen.push(Number(await bar.getAttribute('value')));
          return p.locator('.progress-box .badge').textContent();
        },
        { timeout: 120_000, interval: 100 },
      )
      .toBe('succeeded');
    // Moving: at least one value between the start and the end was shown, never going back, and the
    // bar ends full. (On an idle machine the OCR can be quick enough that one in-between value is all
    // a 100 ms poll sees.)
    expect(seen.filter((v) => v > 0 && v < 100).length).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(Number(await bar.getAttribute('value'))).toBe(100);
  });

  it('cancels a running job', async () => {
    const p = await page();
    await signInWithLink(p, app, key);
    await openTool(p, app, 'ocr');
    await chooseFiles(p, [scanned]);
    await p.getByLabel('Mode').selectOption('force');
    await p.getByRole('button', { name: /^Run / }).click();
    await p.getByText('processing').first().waitFor({ timeout: 60_000 });
    await p.getByRole('button', { name: 'Cancel job' }).click();
    await expect
      .poll(() => p.locator('.progress-box .badge').textContent(), { timeout: 30_000 })
      .toBe('canceled');
    await p.getByRole('alert').filter({ hasText: 'The job was canceled.' }).waitFor();
  });
});

describe('every screen, light and dark', () => {
  it('has no serious or critical axe violations, fits 375 px and trips no CSP directive', async () => {
    const res = await fetch(`${server.url}/api/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: formWith('info', corpusFile('pdf20ex__Simple_PDF_2.0_file.pdf')),
    });
    const job = (await res.json()) as { id: string };
    const screens: Array<[string, string]> = [
      ['tools', ''],
      ['tool', '#/tools/compress'],
      ['job', `#/jobs/${job.id}`],
      ['jobs', '#/jobs'],
      ['recipes', '#/recipes'],
      ['organizer', '#/organize'],
    ];
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1100, 375]) {
        const opened = await openPage(browser, { colorScheme: scheme, width });
        pages.push(opened);
        const p = opened.page;
        await p.goto(app);
        await p.getByLabel('API key').waitFor();
        found.push(...(await axeViolations(p)).map((v) => `${scheme}/${width}/sign-in: ${v}`));
        await signInWithLink(p, app, key);
        for (const [name, hash] of screens) {
          await p.goto(`${app}${hash}`);
          await p.locator('main h1').first().waitFor();
          if (name === 'job') await p.getByText('succeeded').first().waitFor({ timeout: 60_000 });
          found.push(...(await axeViolations(p)).map((v) => `${scheme}/${width}/${name}: ${v}`));
          const overflow = await p.evaluate('document.documentElement.scrollWidth - window.innerWidth');
          if ((overflow as number) > 0)
            found.push(`${scheme}/${width}/${name}: ${overflow}px wider than the window`);
          if (width === 1100 && (name === 'tools' || name === 'job'))
            await screenshot(p, `${name}-${scheme}`);
        }
        expect(opened.cspViolations).toEqual([]);
      }
    }
    expect(found).toEqual([]);
  });
});

afterAll(() => {
  for (const opened of pages) expect(opened.cspViolations).toEqual([]);
});

/** Presses Tab until the focused element matches `selector` (at most 60 times). */
async function tabTo(p: Page, selector: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (await p.evaluate(`!!document.activeElement?.matches(${JSON.stringify(selector)})`)) return;
    await p.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

function formWith(tool: string, file: string): FormData {
  const form = new FormData();
  form.append('tool', tool);
  form.append('file', new Blob([readFileSync(file)]), path.basename(file));
  return form;
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
