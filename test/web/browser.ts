// The browser tier's harness: one Chromium (Debian's, driven by playwright-core) per test file, a
// context per colour scheme, axe-core run in the page, and every CSP violation the page reports kept
// so a test can assert there was none.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
export const CHROMIUM = process.env.QUIRE_TEST_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--disable-dev-shm-usage'] });
}

export interface TestPage {
  page: Page;
  context: BrowserContext;
  /** Console lines about a refused Content-Security-Policy directive. */
  cspViolations: string[];
}

export async function openPage(
  browser: Browser,
  options: { colorScheme?: 'light' | 'dark'; width?: number } = {},
): Promise<TestPage> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: { width: options.width ?? 1100, height: 800 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  return { page, context, cspViolations };
}

/**
 * axe-core's serious and critical violations on the page as it is. The source goes in through the
 * DevTools protocol (page.evaluate), which the page's CSP does not govern, so the policy stays on.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  // Once per document: the app moves between screens by hash, so one injection serves them all.
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  // A string: this file is compiled without the DOM's types, and the expression runs in the page.
  const results = (await page.evaluate('axe.run(document)')) as AxeResults;
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

interface AxeResults {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }>;
}
