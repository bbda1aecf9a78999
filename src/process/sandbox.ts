// The bubblewrap sandbox the document engines (LibreOffice, Chromium) run in: a private mount
// namespace holding only /usr, a few /etc entries and the directories the caller binds, no network
// (a fresh namespace whose loopback reaches nothing), its own pid/ipc/uts namespaces, and, when
// the service runs as root, the unprivileged user `quire-sandbox` with no capabilities.
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QuireError } from '../errors/quire-error.js';
import { SETPRIV } from './limits.js';
import { type RunResult, run } from './runner.js';

export const BWRAP = '/usr/bin/bwrap';
/** Created by scripts/setup.sh and the Dockerfile; owns nothing on the host but its sandboxes. */
export const SANDBOX_USER = 'quire-sandbox';
const PROBE_TIMEOUT_MS = 10_000;

/**
 * What an engine needs of the host, read-only: programs, libraries and their data (/usr, the
 * merged-/usr links), fontconfig and its cache (without the cache every start rescans all fonts),
 * the dynamic linker cache, the time zone and LibreOffice's registry (linked from /usr). Not
 * /etc/passwd (a one-line stand-in is bound instead), nor /home, /root, /var, /tmp or /proc of
 * the host: nothing the service keeps is reachable by path.
 */
const SYSTEM_FILES = ['/etc/fonts', '/etc/ld.so.cache', '/etc/localtime', '/etc/libreoffice'];
const SYSTEM_CACHES = ['/var/cache/fontconfig'];

export interface SandboxIdentity {
  uid: number;
  gid: number;
  /** True when we are root: bwrap sets up the mounts, then setpriv drops to uid/gid. */
  dropFromRoot: boolean;
}

export interface SandboxMount {
  host: string;
  at: string;
  writable?: boolean;
}

export interface SandboxSpec {
  identity: SandboxIdentity;
  /** The only directories of ours the engine sees, each at its own path inside. */
  mounts: readonly SandboxMount[];
  /** Host path of the stand-in /etc/passwd (see `writeSandboxPasswd`). */
  passwd: string;
  /** Working directory and HOME inside the sandbox (TMPDIR is its private /tmp). */
  home: string;
}

/**
 * bwrap argv that runs `command args` in the sandbox. As root, user namespaces stay shared (the
 * uid we drop to must be the host's own `quire-sandbox`, not a mapped alias of root); otherwise
 * bwrap needs one to mount anything, and the engine keeps the service's uid, confined by mounts.
 */
export function sandboxArgv(spec: SandboxSpec, command: string, args: readonly string[]): [string, string[]] {
  const { identity } = spec;
  const namespaces = identity.dropFromRoot
    ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try']
    : [
        '--unshare-user',
        '--unshare-ipc',
        '--unshare-pid',
        '--unshare-net',
        '--unshare-uts',
        '--unshare-cgroup-try',
        // A document engine has no use for namespaces of its own; a kernel exploit often does.
        '--disable-userns',
      ];
  const system = [
    ...['--ro-bind', '/usr', '/usr'],
    ...['--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin'],
    ...['--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64'],
    ...SYSTEM_FILES.flatMap((p) => ['--ro-bind-try', p, p]),
    ...SYSTEM_CACHES.flatMap((p) => ['--ro-bind-try', p, p]),
    ...['--ro-bind', spec.passwd, '/etc/passwd'],
    ...['--proc', '/proc', '--dev', '/dev'],
    // Sticky and world-writable like the real ones: LibreOffice's pipe and Chromium's shared memory.
    ...['--perms', '1777', '--tmpfs', '/tmp', '--perms', '1777', '--tmpfs', '/dev/shm'],
  ];
  const binds = spec.mounts.flatMap((m) => [m.writable ? '--bind' : '--ro-bind', m.host, m.at]);
  const targets = [...SYSTEM_FILES, ...SYSTEM_CACHES, '/etc/passwd', ...spec.mounts.map((m) => m.at)];
  const env = [
    '--clearenv',
    ...['--setenv', 'PATH', '/usr/bin:/bin', '--setenv', 'LANG', 'C.UTF-8'],
    ...['--setenv', 'HOME', spec.home, '--setenv', 'TMPDIR', '/tmp'],
  ];
  const drop = identity.dropFromRoot
    ? [
        SETPRIV,
        `--reuid=${identity.uid}`,
        `--regid=${identity.gid}`,
        '--clear-groups',
        '--inh-caps=-all',
        '--bounding-set=-all',
        '--no-new-privs',
        '--',
      ]
    : [];
  return [
    BWRAP,
    [
      ...namespaces,
      '--die-with-parent',
      ...parentDirs(targets),
      ...system,
      ...binds,
      ...env,
      '--chdir',
      spec.home,
      '--',
      ...drop,
      command,
      ...args,
    ],
  ];
}

/**
 * bwrap creates a bind target's missing parents 0700 root-owned, which the dropped uid could not
 * cross; they are made first, world-searchable (they are empty apart from their mount points).
 */
function parentDirs(targets: readonly string[]): string[] {
  const parents = new Set<string>();
  for (const target of targets) {
    for (let dir = path.posix.dirname(target); dir !== '/'; dir = path.posix.dirname(dir)) parents.add(dir);
  }
  return [...parents].sort((a, b) => a.length - b.length).flatMap((dir) => ['--perms', '0755', '--dir', dir]);
}

/** Creates (or takes over) a directory the sandboxed engine may write: owned by its uid, 0700. */
export async function makeSandboxDir(dir: string, identity: SandboxIdentity): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (identity.dropFromRoot) await chown(dir, identity.uid, identity.gid);
  await chmod(dir, 0o700);
  return dir;
}

/** The stand-in /etc/passwd: only the engine's own entry (some libraries want a name for the uid). */
export async function writeSandboxPasswd(dir: string, identity: SandboxIdentity): Promise<string> {
  const file = path.join(dir, 'passwd');
  const line = `${SANDBOX_USER}:x:${identity.uid}:${identity.gid}::/nonexistent:/usr/sbin/nologin\n`;
  await writeFile(file, line, { mode: 0o644 });
  await chmod(file, 0o644);
  return file;
}

async function lookUpUser(name: string): Promise<{ uid: number; gid: number } | undefined> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid && gid) return { uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

/**
 * Runs `command args` in a sandbox holding nothing of ours (no mounts, a stand-in passwd): how the
 * checks of what this host lets a sandbox do are made.
 */
export function runInEmptySandbox(
  identity: SandboxIdentity,
  command: string,
  args: readonly string[],
): Promise<RunResult> {
  const spec = { identity, mounts: [], passwd: '/dev/null', home: '/tmp' };
  const [file, argv] = sandboxArgv(spec, command, args);
  return run(file, argv, { cwd: tmpdir(), timeoutMs: PROBE_TIMEOUT_MS });
}

async function probe(): Promise<SandboxIdentity | string> {
  let identity: SandboxIdentity;
  const uid = process.getuid?.() ?? -1;
  if (uid === 0) {
    const user = await lookUpUser(SANDBOX_USER);
    if (!user) return `the user ${SANDBOX_USER} does not exist (scripts/setup.sh creates it)`;
    identity = { ...user, dropFromRoot: true };
  } else {
    identity = { uid, gid: process.getgid?.() ?? uid, dropFromRoot: false };
  }
  try {
    const result = await runInEmptySandbox(identity, '/usr/bin/true', []);
    if (result.exitCode === 0) return identity;
    // bwrap's first stderr line names what the host refused (a namespace, a mount).
    const why = result.stderrTail
      .split('\n')[0]
      ?.replace(/^bwrap: /, '')
      .slice(0, 200);
    return `bubblewrap cannot build the sandbox here (${why || `exit ${result.exitCode}`})`;
  } catch (err) {
    return err instanceof QuireError && err.code === 'engine_unavailable'
      ? 'bubblewrap is not installed (apt-get install bubblewrap)'
      : `bubblewrap failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}

let probed: Promise<SandboxIdentity | string> | undefined;

/**
 * The identity engines run under, after checking once per process that this host can build the
 * sandbox. Fails closed: without it the engine is unavailable rather than run with the service's
 * view of the file system.
 */
export async function requireSandbox(engine: string): Promise<SandboxIdentity> {
  probed ??= probe();
  const result = await probed;
  if (typeof result === 'string') throw new QuireError('engine_unavailable', `${engine}: ${result}`);
  return result;
}
