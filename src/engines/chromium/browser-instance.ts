// A long-lived headless Chromium in its own bubblewrap sandbox (src/process/sandbox.ts)
// with only its profile folder, driven by playwright-core over --remote-debugging-pipe: no DevTools
// port, and no network at all in the sandbox. playwright-core never downloads a browser itself.
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { QuireError } from '../../errors/quire-error.js';
import { SETPRIV } from '../../process/limits.js';
import {
  BWRAP,
  makeSandboxDir,
  requireSandbox,
  runInEmptySandbox,
  type SandboxIdentity,
  sandboxArgv,
  writeSandboxPasswd,
} from '../../process/sandbox.js';
import { makeWorkDir } from '../../process/work-dir.js';

/** Debian's launcher script; its version banner is what the probe reads. */
export const CHROMIUM = '/usr/bin/chromium';
/** The browser itself: the launcher script sources /etc/chromium.d, which the sandbox hides. */
const CHROMIUM_BINARY = '/usr/lib/chromium/chromium';
const START_TIMEOUT_MS = 60_000;
const PROFILE_INSIDE = '/sandbox/profile';

/**
 * Flags, each for a reason. --no-sandbox: Chromium's own sandbox needs user namespaces, which
 * bubblewrap denies inside; bubblewrap is the sandbox. The next five stop Chromium's own background
 * traffic. The proxy and resolver flags are a second wall behind the empty network namespace and
 * route interception (chromium.ts): every request our handler misses goes to a closed port, names
 * never resolve, and WebRTC may not send UDP around the proxy. The pipe carries DevTools.
 * PERFORMANCE_FLAGS keep every page at full speed (see there).
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
    '--remote-debugging-pipe',
    '--no-startup-window',
    ...PERFORMANCE_FLAGS,
    `--user-data-dir=${userDataDir}`,
  ];
}

/**
 * A headless page has no visible window, so without these Chromium treats it as a background
 * tab: its renderer runs at a lower priority with throttled timers, which on a busy machine made a
 * print 2–4× slower than playwright's defaults (which set the same flags). Field trials and the
 * hang monitor are experiments and watchdogs a print service does not want; paint holding delays
 * the first paint for a visual effect nobody sees. Site-per-process is off because it only
 * separates sites inside one job, where the page can load nothing but its own origin: with it, the
 * first navigation of every job swapped to a second renderer and a spare third was started. Jobs
 * stay apart regardless, since Chromium never shares a renderer between two browser contexts.
 * Each context also gets a browser window whose omnibox popup (a WebUI, never shown headless) was
 * loaded ahead in a renderer of its own: two WebUI features off halve a job's CPU. Measured in
 * docs/benchmarks.md (`html`).
 */
const PERFORMANCE_FLAGS = [
  '--disable-field-trial-config',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  '--disable-back-forward-cache',
  '--disable-breakpad',
  '--disable-hang-monitor',
  '--disable-ipc-flooding-protection',
  '--disable-component-extensions-with-background-pages',
  '--disable-site-isolation-trials',
  '--disable-features=PaintHolding,MediaRouter,OptimizationHints,Translate,IsolateOrigins,site-per-process,SpareRendererForSitePerProcess,WebUIOmniboxPopup,WebUIOmniboxAimPopup',
  '--metrics-recording-only',
  '--password-store=basic',
  '--no-service-autorun',
];

/**
 * Chromium runs as uid 0 of a user namespace of its own, which on the host is the unprivileged
 * sandbox user, with every capability dropped (bounding set included, so no exec regains one) and
 * no further user namespace. Chromium's renderers cost ~60–120 ms more CPU per page under any
 * non-root uid (docs/benchmarks.md, `html`), and uid 0 here is root only by name: the host sees
 * `quire-sandbox`, files are read and written as it, and there is no capability to use.
 */
const ROOT_BY_NAME_ONLY = ['--uid', '0', '--gid', '0', '--cap-drop', 'ALL'];

/**
 * Opens the sandbox user's own user namespace with uid 0 in it, around Chromium. Mounts seen from a
 * user namespace are nodev, so /dev is rebuilt (bwrap binds the few device nodes) with a fresh
 * /dev/shm; the rest of the sandbox's file system is bound through unchanged.
 */
const OWN_NAMESPACE_ARGS = [
  ...ROOT_BY_NAME_ONLY,
  ...['--unshare-user', '--disable-userns', '--bind', '/', '/', '--dev', '/dev'],
  ...['--perms', '1777', '--tmpfs', '/dev/shm', '--'],
];

let ownNamespace: Promise<boolean> | undefined;

/**
 * Whether the sandbox user may open a user namespace inside the sandbox, checked once per process:
 * some hosts forbid unprivileged user namespaces, and there Chromium keeps the plain sandbox user.
 */
function ownNamespaceAllowed(identity: SandboxIdentity): Promise<boolean> {
  ownNamespace ??= (async () => {
    try {
      const result = await runInEmptySandbox(identity, BWRAP, [...OWN_NAMESPACE_ARGS, '/usr/bin/true']);
      return result.exitCode === 0;
    } catch {
      return false;
    }
  })();
  return ownNamespace;
}

/**
 * The wrapper's exec chain: setpriv (killed with the service) → bwrap's sandbox (namespaces built by
 * the service as root, then the drop to the sandbox user) → the inner bwrap above → Chromium. A
 * service that is not root already runs the sandbox in a user namespace that allows no other, so
 * there (and where the host forbids it) Chromium keeps the sandbox's uid, as before.
 */
async function sandboxedBrowser(identity: SandboxIdentity, dir: string, profile: string): Promise<string[]> {
  const inner = identity.dropFromRoot && (await ownNamespaceAllowed(identity));
  const [bwrap, sandboxed] = sandboxArgv(
    {
      identity,
      mounts: [{ host: profile, at: PROFILE_INSIDE, writable: true }],
      passwd: await writeSandboxPasswd(dir, identity),
      home: PROFILE_INSIDE,
    },
    inner ? BWRAP : CHROMIUM_BINARY,
    inner ? [...OWN_NAMESPACE_ARGS, CHROMIUM_BINARY] : [],
  );
  return [SETPRIV, '--pdeathsig', 'KILL', '--', bwrap, ...sandboxed];
}

/** POSIX single quotes: the wrapper below must pass every argument through unchanged. */
const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * The executable playwright-core launches (it inherits playwright's DevTools pipes on fds 3 and
 * 4): records its pid, which stays the process group's, so `stop` can kill the group at once,
 * then execs into setpriv (killed with the service) → bwrap → Chromium. Built from our own fixed
 * argv only; nothing of a job ever reaches it.
 */
function wrapperScript(pidFile: string, argv: readonly string[]): string {
  return `#!/bin/sh\necho $$ > ${quote(pidFile)}\nexec ${argv.map(quote).join(' ')} "$@"\n`;
}

export interface BrowserPoolOptions {
  /** Pages printed at once, each in its own context. */
  size: number;
  recycleAfter: number;
  workRoot: string;
}

export class BrowserInstance {
  dead = false;
  private constructor(
    readonly browser: Browser,
    private readonly dir: string,
    /** The wrapper's pid, which is the process group of every process of this browser. */
    readonly groupId: number | undefined,
  ) {}

  static async start(opts: { workRoot: string }): Promise<BrowserInstance> {
    const identity = await requireSandbox('Chromium');
    await mkdir(opts.workRoot, { recursive: true, mode: 0o700 });
    const dir = makeWorkDir(opts.workRoot);
    const profile = await makeSandboxDir(path.join(dir, 'profile'), identity);
    const pidFile = path.join(dir, 'browser.pid');
    const wrapper = path.join(dir, 'chromium-sandboxed');
    await writeFile(wrapper, wrapperScript(pidFile, await sandboxedBrowser(identity, dir, profile)));
    await chmod(wrapper, 0o700);
    let browser: Browser;
    try {
      // Loaded on the first launch: playwright-core is ~80 MiB of heap, and every engine spawn
      // forks the whole server, so a service that never prints HTML should not carry it.
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: wrapper,
        ignoreDefaultArgs: true,
        args: chromiumArgs(PROFILE_INSIDE),
        // The service's environment (keys, database URLs) stays out; bwrap clears it again inside.
        env: { PATH: '/usr/bin:/bin' },
        timeout: START_TIMEOUT_MS,
        // Shutdown is the service's: it closes the pools itself.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch {
      // playwright-core has already killed what it launched.
      await rm(dir, { recursive: true, force: true });
      throw new QuireError('engine_failed', 'Chromium did not start');
    }
    const instance = new BrowserInstance(browser, dir, await readPid(pidFile));
    browser.on('disconnected', () => {
      instance.dead = true;
    });
    return instance;
  }

  /** Kills the browser's whole process group (renderers, GPU and utility processes) at once. */
  async stop(): Promise<void> {
    this.dead = true;
    // Only while connected: once the browser is gone its pid may belong to someone else.
    if (this.browser.isConnected() && this.groupId !== undefined) killGroup(this.groupId);
    await this.browser.close().catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function readPid(pidFile: string): Promise<number | undefined> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

/** SIGKILL to the wrapper's process group; bwrap's --die-with-parent takes the sandbox down with it. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: already gone.
  }
}
