// Long-lived headless Chromium instances, started through the subprocess runner (own process group,
// parent-death signal) and driven over the DevTools protocol by playwright-core, which never
// launches or downloads a browser itself.
import { mkdir, rm } from 'node:fs/promises';
import { type Browser, chromium } from 'playwright-core';
import { QuireError } from '../../errors/quire-error.js';
import { run } from '../../process/runner.js';
import { makeWorkDir } from '../../process/work-dir.js';
import { createInstancePool, type PooledInstance } from '../instance-pool.js';

export const CHROMIUM = '/usr/bin/chromium';
const START_TIMEOUT_MS = 60_000;
const INSTANCE_LIFETIME_MS = 2_147_483_647;
/** Chromium prints its DevTools endpoint once it listens (a random port: `--remote-debugging-port=0`). */
const DEVTOOLS_LINE = /^DevTools listening on (ws:\/\/\S+)/;

/**
 * Flags, each for a reason. Root needs --no-sandbox. The next five stop Chromium's own background
 * traffic (the host has no network; failures would only be noise). The proxy flags are the
 * network backstop behind route interception (html-page.ts): every page request that is not
 * answered by our handler goes to a closed local port, loopback included (`<-loopback>` removes
 * Chromium's implicit bypass), names never resolve, and WebRTC may not send UDP around the proxy.
 */
export function chromiumArgs(userDataDir: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-gpu',
    '--disable-extensions',
    '--disable-default-apps',
    '--no-default-browser-check',
    '--mute-audio',
    '--hide-scrollbars',
    '--dns-prefetch-disable',
    '--proxy-server=http://127.0.0.1:9',
    '--proxy-bypass-list=<-loopback>',
    '--host-resolver-rules=MAP * ~NOTFOUND',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    `--user-data-dir=${userDataDir}`,
    'about:blank',
  ];
}

export interface BrowserPoolOptions {
  size: number;
  recycleAfter: number;
  workRoot: string;
}

export class BrowserInstance implements PooledInstance {
  dead = false;
  private constructor(
    readonly browser: Browser,
    private readonly dir: string,
    private readonly stopper: AbortController,
    private readonly exited: Promise<unknown>,
  ) {}

  static async start(opts: BrowserPoolOptions): Promise<BrowserInstance> {
    await mkdir(opts.workRoot, { recursive: true, mode: 0o700 });
    const dir = await makeWorkDir(opts.workRoot);
    const stopper = new AbortController();
    let announce: (endpoint: string | undefined) => void = () => {};
    const endpoint = new Promise<string | undefined>((resolve) => {
      announce = resolve;
    });
    const holder: { instance?: BrowserInstance } = {};
    // No address-space cap: V8 and PartitionAlloc reserve tens of GiB of virtual memory up front,
    // so RLIMIT_AS would kill an idle browser. Recycling after N pages bounds its real memory.
    const exited = run(CHROMIUM, chromiumArgs(dir), {
      cwd: dir,
      timeoutMs: INSTANCE_LIFETIME_MS,
      signal: stopper.signal,
      onStderrLine: (line) => {
        const match = DEVTOOLS_LINE.exec(line);
        if (match) announce(match[1]);
      },
    }).then(
      (r) => r,
      (e: unknown) => e,
    );
    void exited.then(() => {
      announce(undefined);
      if (holder.instance) holder.instance.dead = true;
    });
    const timer = setTimeout(() => announce(undefined), START_TIMEOUT_MS);
    const ws = await endpoint;
    clearTimeout(timer);
    const fail = async () => {
      stopper.abort();
      await exited;
      await rm(dir, { recursive: true, force: true });
      return new QuireError('engine_failed', 'Chromium did not start');
    };
    if (!ws) throw await fail();
    let browser: Browser;
    try {
      browser = await chromium.connectOverCDP(ws, { timeout: START_TIMEOUT_MS });
    } catch {
      throw await fail();
    }
    const instance = new BrowserInstance(browser, dir, stopper, exited);
    holder.instance = instance;
    return instance;
  }

  /** Kills the browser's whole process group (renderers, GPU and utility processes) at once. */
  async stop(): Promise<void> {
    this.dead = true;
    this.stopper.abort(new Error('browser instance stopped'));
    await this.browser.close().catch(() => {});
    await this.exited;
    await rm(this.dir, { recursive: true, force: true });
  }
}

export function createBrowserPool(opts: BrowserPoolOptions) {
  return createInstancePool({
    name: 'Chromium',
    size: opts.size,
    recycleAfter: opts.recycleAfter,
    start: () => BrowserInstance.start(opts),
  });
}
