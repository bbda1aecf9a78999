// A job's tab: a BrowserContext of its own (own storage, cookies and cache) with one page, whose
// requests our route handler answers from the job's site. Opening one starts a renderer, the most
// expensive part of a small print; so after a job that printed, its tab may be wiped and kept for
// the next job of the same account (never another's), which then reuses the renderer.
import type { BrowserContext, CDPSession, Page, Route } from 'playwright-core';
import type { BrowserInstance } from './browser-instance.js';
import { SITE_ORIGIN } from './site.js';

export interface Tab {
  context: BrowserContext;
  page: Page;
  /** Answers the page's requests: the job's site while it prints; unset, every request is refused. */
  serve: ((route: Route) => Promise<void>) | undefined;
  /** Our own DevTools session on the page, opened by the first wipe. */
  cdp?: CDPSession;
}

/** Opens an empty context with its page: a renderer process starts. */
export async function openTab(instance: BrowserInstance): Promise<Tab> {
  // Service workers would fetch outside the page's route handler; block them.
  const context = await instance.browser.newContext({ serviceWorkers: 'block', acceptDownloads: false });
  try {
    await context.routeWebSocket(/.*/, (ws) => ws.close());
    // The empty page loads nothing, so the handler is in place before the first request.
    const tab: Tab = { context, page: await context.newPage(), serve: undefined };
    await context.route('**/*', (route) => (tab.serve ? tab.serve(route) : route.abort('blockedbyclient')));
    return tab;
  } catch (error) {
    await context.close().catch(() => {});
    throw error;
  }
}

/**
 * Leaves the tab as a fresh one would be for the page the next job loads: the printed document
 * unloaded before anything is cleared (so none of its handlers can write after the wipe), no
 * history, no `window.name`, and the site origin's storage of every kind (local and session
 * storage, IndexedDB, cookies, cache storage, service worker registrations), the context's cookies
 * and its HTTP cache gone. Resolves false when the tab is not one page on its own any more (the
 * job opened a window): such a tab is closed instead.
 */
export async function wipeTab(tab: Tab): Promise<boolean> {
  tab.serve = undefined;
  if (tab.context.pages().length !== 1) return false;
  await tab.page.goto('about:blank');
  await tab.page.evaluate("window.name = ''");
  tab.cdp ??= await tab.context.newCDPSession(tab.page);
  const cdp = tab.cdp;
  await Promise.all([
    cdp.send('Page.resetNavigationHistory'),
    cdp.send('Storage.clearDataForOrigin', { origin: SITE_ORIGIN, storageTypes: 'all' }),
    cdp.send('Network.clearBrowserCache'),
    tab.context.clearCookies(),
  ]);
  return tab.context.pages().length === 1;
}

interface Kept {
  tab: Tab;
  account: string;
  timer: NodeJS.Timeout;
}

/**
 * Wiped tabs waiting for their account's next job, each for at most `keepMs`, oldest first. A tab
 * is only ever taken by the account that printed in it.
 */
export class Shelf {
  private kept: Kept[] = [];

  constructor(
    private readonly keepMs: number,
    private readonly discard: (tab: Tab) => void,
  ) {}

  get size(): number {
    return this.kept.length;
  }

  put(tab: Tab, account: string): void {
    const entry: Kept = { tab, account, timer: setTimeout(() => this.drop(entry), this.keepMs) };
    entry.timer.unref();
    this.kept.push(entry);
  }

  /** The account's most recently kept tab, taken off the shelf. */
  take(account: string): Tab | undefined {
    for (let i = this.kept.length - 1; i >= 0; i--)
      if (this.kept[i]!.account === account) return this.remove(i);
    return undefined;
  }

  /** Closes the tab kept longest, whoever's it is (room for a new renderer). */
  dropOldest(): void {
    const first = this.kept[0];
    if (first) this.drop(first);
  }

  /** Closes every kept tab. */
  clear(): void {
    while (this.kept.length > 0) this.dropOldest();
  }

  private drop(entry: Kept): void {
    const at = this.kept.indexOf(entry);
    if (at >= 0) this.discard(this.remove(at));
  }

  private remove(at: number): Tab {
    const [entry] = this.kept.splice(at, 1);
    clearTimeout(entry!.timer);
    return entry!.tab;
  }
}
