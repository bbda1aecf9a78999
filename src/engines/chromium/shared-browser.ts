// One sandboxed Chromium shared by every html-to-pdf job: up to `size` pages print at once, each in
// a BrowserContext of its own (own storage, cookies and cache: the isolation between jobs), either
// fresh or, for the same account only, the wiped tab of that account's last job (tabs.ts). The
// browser is replaced after `recycleAfter` pages or once its processes hold more than
// `recycleRssBytes`, and only between pages: the old one finishes the pages it has, then stops.
import { readdir, readFile } from 'node:fs/promises';
import { QuireError } from '../../errors/quire-error.js';
import { BrowserInstance, type BrowserPoolOptions } from './browser-instance.js';
import { openTab, Shelf, type Tab, wipeTab } from './tabs.js';

export interface SharedBrowserOptions extends BrowserPoolOptions {
  /** Resident memory of the browser's processes past which it is replaced after its pages finish. */
  recycleRssBytes?: number;
  /** How long a wiped tab waits for its account's next job; 0 closes every tab after its job. */
  keepTabMs?: number;
}

/** A context whose page is stuck (a script loop, a hung renderer) gets this long to close. */
const CLOSE_GRACE_MS = 5_000;
/** A wipe that takes longer than this (a page that hangs its renderer) closes the tab instead. */
const WIPE_GRACE_MS = 2_000;
/** Reading every process's memory from /proc costs a few ms: done once per this many pages. */
const RSS_CHECK_EVERY = 20;

/** `work`'s value, or `late` if it fails or is still pending after `ms`. */
function within<T>(work: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  return Promise.race([work.catch(() => late), expired]).finally(() => clearTimeout(timer));
}

/** Resolves true once `work` settles, false if it is still pending after `ms`. */
const settlesWithin = (work: Promise<unknown>, ms: number): Promise<boolean> =>
  within(
    work.then(
      () => true,
      () => true,
    ),
    ms,
    false,
  );

/**
 * Resident memory of every process in the browser's process group (the wrapper's, kept to the end)
 * as proportional set size: a page shared by n of them counts 1/n in each. Summed RSS counts
 * Chromium's shared code and memory once per process, which with a few kept tabs passed 1 GiB
 * while the processes really held about half of it, and recycled the browser every 20 pages.
 */
async function groupPssBytes(pgid: number): Promise<number> {
  let kib = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // After the command name (which may hold spaces): pgrp is field 5.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    const rollup = await readFile(`/proc/${entry}/smaps_rollup`, 'utf8').catch(() => '');
    kib += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
  }
  return kib * 1024;
}

/** One browser and the jobs it serves; a replaced generation lives until its last page ends. */
class Generation {
  inFlight = 0;
  printed = 0;
  retiring = false;
  readonly shelf: Shelf;

  constructor(
    readonly instance: BrowserInstance,
    private readonly keepTabMs: number,
  ) {
    this.shelf = new Shelf(keepTabMs, (tab) => void tab.context.close().catch(() => {}));
  }

  /**
   * Wipes the job's tab and keeps it for `account`'s next job; false (the tab is then closed)
   * without an account, when the wipe fails or hangs, or once the browser or service is stopping.
   */
  async keep(tab: Tab, account: string | undefined, stopping: () => boolean): Promise<boolean> {
    const open = () => !this.retiring && !this.instance.dead && !stopping();
    if (account === undefined || this.keepTabMs === 0 || !open()) return false;
    if (!(await within(wipeTab(tab), WIPE_GRACE_MS, false)) || !open()) return false;
    this.shelf.put(tab, account);
    return true;
  }

  /**
   * The account's kept tab, else a new context with its page. Not opened ahead of the job: an idle
   * spare page cost about as much CPU while it waited as the wait saved (docs/benchmarks.md,
   * `html`). A new one first closes the tab kept longest if the browser would otherwise hold more
   * renderers than pages print at once.
   */
  take(account: string | undefined, size: number): Promise<Tab> {
    const kept = account === undefined ? undefined : this.shelf.take(account);
    if (kept) return Promise.resolve(kept);
    if (this.inFlight + this.shelf.size > size) this.shelf.dropOldest();
    return openTab(this.instance);
  }

  async stop(): Promise<void> {
    this.retiring = true;
    this.shelf.clear();
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
        current = new Generation(instance, opts.keepTabMs ?? 0);
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
    gen.shelf.clear();
    if (current === gen) current = undefined;
    return gen.inFlight === 0 ? gen.stop() : Promise.resolve();
  };

  const overMemory = async (gen: Generation): Promise<boolean> => {
    if (opts.recycleRssBytes === undefined || gen.printed % RSS_CHECK_EVERY !== 0) return false;
    const pgid = gen.instance.groupId;
    return pgid !== undefined && (await groupPssBytes(pgid)) > opts.recycleRssBytes;
  };

  /**
   * Keeps the job's tab, wiped, for the account's next job (`account` set after a success), or
   * closes its context, its renderer with it; a context that will not close takes the browser down.
   */
  const finish = async (gen: Generation, tab: Tab | undefined, account?: string): Promise<void> => {
    const kept = tab !== undefined && (await gen.keep(tab, account, () => closed));
    const closedInTime = !tab || kept || (await settlesWithin(tab.context.close(), CLOSE_GRACE_MS));
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
     * Runs `print` on a tab of the shared browser: `account`'s kept one, else a fresh context. After
     * a failure the context is closed, which also stops a page still running scripts after a
     * timeout or cancel. After a success the caller has its result while the tab is wiped and kept
     * for the account's next job, or closed (the slot is held until it is either).
     */
    async use<R>(account: string | undefined, print: (tab: Tab) => Promise<R>): Promise<R> {
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
        tab = await gen.take(account, opts.size);
        result = await print(tab);
      } catch (error) {
        await finish(gen, tab).finally(() => slots.give());
        throw error;
      }
      void finish(gen, tab, account)
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
