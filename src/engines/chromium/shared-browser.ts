// One sandboxed Chromium shared by every html-to-pdf job: up to `size` pages print at once, each in
// its own fresh BrowserContext (own storage, cookies and cache: the isolation between jobs). The
// browser is replaced after `recycleAfter` pages or once its processes hold more than
// `recycleRssBytes`, and only between pages: the old one finishes the pages it has, then stops.
import { readdir, readFile } from 'node:fs/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { QuireError } from '../../errors/quire-error.js';
import { BrowserInstance, type BrowserPoolOptions } from './browser-instance.js';

export interface Tab {
  context: BrowserContext;
  page: Page;
}

export interface SharedBrowserOptions extends BrowserPoolOptions {
  /** Resident memory of the browser's processes past which it is replaced after its pages finish. */
  recycleRssBytes?: number;
}

/** A context whose page is stuck (a script loop, a hung renderer) gets this long to close. */
const CLOSE_GRACE_MS = 5_000;
/** Reading every process's memory from /proc costs a few ms: done once per this many pages. */
const RSS_CHECK_EVERY = 20;
const PAGE_BYTES = 4096;

/** Opens an empty context with its page: the expensive part of a job (a renderer process starts). */
async function openTab(instance: BrowserInstance): Promise<Tab> {
  // Service workers would fetch outside the page's route handler; block them.
  const context = await instance.browser.newContext({ serviceWorkers: 'block', acceptDownloads: false });
  try {
    await context.routeWebSocket(/.*/, (ws) => ws.close());
    return { context, page: await context.newPage() };
  } catch (error) {
    await context.close().catch(() => {});
    throw error;
  }
}

/** Resolves true once `work` settles, false if it is still pending after `ms`. */
function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}

/** Resident memory of every process in the browser's process group (the wrapper's, kept to the end). */
async function groupRssBytes(pgid: number): Promise<number> {
  let pages = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // After the command name (which may hold spaces): pgrp is field 5, rss (in pages) field 24.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid) pages += Number(fields[21] ?? 0);
  }
  return pages * PAGE_BYTES;
}

/** One browser and the jobs it serves; a replaced generation lives until its last page ends. */
class Generation {
  inFlight = 0;
  printed = 0;
  retiring = false;

  constructor(readonly instance: BrowserInstance) {}

  /**
   * A new context with its page. Not opened ahead of the job: an idle spare page cost about as
   * much CPU while it waited as the wait saved (docs/benchmarks.md, `html`).
   */
  take(): Promise<Tab> {
    return openTab(this.instance);
  }

  async stop(): Promise<void> {
    this.retiring = true;
    await this.instance.stop();
  }
}

/** Pages printed at once: a counting semaphore whose waiters can be woken to give up. */
class Slots {
  private readonly waiters: (() => void)[] = [];
  constructor(private free: number) {}

  async take(stopped: () => boolean, stoppedError: () => Error): Promise<void> {
    while (this.free === 0) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      if (stopped()) throw stoppedError();
    }
    this.free -= 1;
  }

  give(): void {
    this.free += 1;
    this.waiters.shift()?.();
  }

  wakeAll(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

export function createSharedBrowser(opts: SharedBrowserOptions) {
  let current: Generation | undefined;
  let starting: Promise<Generation> | undefined;
  const slots = new Slots(opts.size);
  let closed = false;

  const closedError = () => new QuireError('engine_unavailable', 'Chromium is shutting down');

  const generation = async (): Promise<Generation> => {
    if (closed) throw closedError();
    if (current && !current.retiring && !current.instance.dead) return current;
    if (current) void retire(current);
    starting ??= BrowserInstance.start(opts)
      .then((instance) => {
        current = new Generation(instance);
        return current;
      })
      .finally(() => {
        starting = undefined;
      });
    return starting;
  };

  /** No new pages go to `gen`; it stops as soon as it has none in flight. */
  const retire = (gen: Generation): Promise<void> => {
    gen.retiring = true;
    if (current === gen) current = undefined;
    return gen.inFlight === 0 ? gen.stop() : Promise.resolve();
  };

  const overMemory = async (gen: Generation): Promise<boolean> => {
    if (opts.recycleRssBytes === undefined || gen.printed % RSS_CHECK_EVERY !== 0) return false;
    const pgid = gen.instance.groupId;
    return pgid !== undefined && (await groupRssBytes(pgid)) > opts.recycleRssBytes;
  };

  /** Closes the job's context (its renderer with it); a context that will not close takes the browser down. */
  const finish = async (gen: Generation, tab: Tab | undefined): Promise<void> => {
    const closedInTime = tab ? await settlesWithin(tab.context.close(), CLOSE_GRACE_MS) : true;
    gen.inFlight -= 1;
    if (!closedInTime) {
      // Its renderer no longer answers the browser: kill the browser now, other pages with it.
      if (current === gen) current = undefined;
      await gen.stop();
    } else if (gen.instance.dead || closed || (await overMemory(gen))) await retire(gen);
    else if (gen.retiring && gen.inFlight === 0) await gen.stop();
  };

  return {
    /**
     * Runs `print` on a fresh context of the shared browser. The context is closed afterwards
     * whatever happened, which also stops a page still running scripts after a timeout or cancel.
     * After a success the caller has its result while the context closes behind it (the slot is
     * held until it has).
     */
    async use<R>(print: (tab: Tab) => Promise<R>): Promise<R> {
      if (closed) throw closedError();
      await slots.take(() => closed, closedError);
      let gen: Generation;
      try {
        gen = await generation();
      } catch (error) {
        slots.give();
        throw error;
      }
      gen.inFlight += 1;
      // Counted as the page is handed out, so the page past the budget already goes to a new browser.
      gen.printed += 1;
      if (gen.printed >= opts.recycleAfter) void retire(gen);
      let tab: Tab | undefined;
      let result: R;
      try {
        tab = await gen.take();
        result = await print(tab);
      } catch (error) {
        await finish(gen, tab).finally(() => slots.give());
        throw error;
      }
      void finish(gen, tab)
        .catch(() => {})
        .finally(() => slots.give());
      return result;
    },

    /** Stops the browser now if idle, else as its last page ends; later uses fail. */
    async close(): Promise<void> {
      closed = true;
      slots.wakeAll();
      const gen = current ?? (await starting?.catch(() => undefined));
      if (gen) await retire(gen);
    },
  };
}

export type SharedBrowser = ReturnType<typeof createSharedBrowser>;
