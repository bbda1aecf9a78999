// A throwaway PostgreSQL server for tests: Debian's binaries (/usr/lib/postgresql/<version>/bin, the
// highest version installed) on a temp data dir, on a free loopback port with trust authentication and
// no durability (fsync off), in its own process group so that stop() (or the test process exiting)
// takes the postmaster and every backend down. initdb and postgres refuse to run as root, so under
// root (CI, the dev container) both run as the `postgres` system user the Debian package creates.
// scripts/setup.sh --with-test-tools installs the package.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chown, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './cli-process.js';

export interface PgTestServer {
  /** The postmaster, leader of its own process group (for fault injection: SIGSTOP, SIGKILL). */
  pid: number;
  port: number;
  /** postgres://quire@127.0.0.1:<port>/<database> (default database: `postgres`). */
  url(database?: string): string;
  /** Creates a fresh empty database (a unique name unless given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /**
   * A fresh empty schema in one shared database, as a URL whose search_path is that schema: as
   * isolated as a database for code using unqualified names, and ten times faster to make than
   * CREATE DATABASE (which copies a template), for suites that want one per test.
   */
  createSchema(): Promise<string>;
  /** The server's log so far, for failure messages. */
  logFile: string;
  stop(): Promise<void>;
}

const USER = 'quire';
/** initdb takes a few seconds on two cores; the postmaster then starts in well under one. */
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/** The bin directory of the highest installed version: QUIRE_PG_BIN_DIR, else /usr/lib/postgresql/N/bin. */
export function postgresBinDir(): string {
  if (process.env.QUIRE_PG_BIN_DIR) return process.env.QUIRE_PG_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+(\.\d+)?$/.test(v) && existsSync(path.join(root, v, 'bin/initdb')))
        .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      `no PostgreSQL server under ${root}/*/bin; install it with bash scripts/setup.sh --with-test-tools`,
    );
  }
  return path.join(root, versions[0] as string, 'bin');
}

/** Under root: the command prefix that drops to the postgres user, and its uid/gid for chown. */
function dropPrivileges(): { prefix: string[]; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'postgres');
  if (!passwd) {
    throw new Error(
      'running as root and there is no postgres user to run PostgreSQL as (apt-get install postgresql)',
    );
  }
  return {
    prefix: ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--'],
    uid: Number(passwd[2]),
    gid: Number(passwd[3]),
  };
}

export async function startPostgresServer(): Promise<PgTestServer> {
  const bin = postgresBinDir();
  const drop = dropPrivileges();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-pg-'));
  if (drop) await chown(dir, drop.uid, drop.gid);
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  const run = (command: string, args: string[]): [string, string[]] =>
    drop ? [drop.prefix[0] as string, [...drop.prefix.slice(1), command, ...args]] : [command, args];

  try {
    const [initdb, initdbArgs] = run(path.join(bin, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      USER,
      '--auth=trust',
      '--no-sync',
      '--encoding=UTF8',
      '--locale=C',
    ]);
    execFileSync(initdb, initdbArgs, { cwd: dir, stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`initdb failed: ${String(error)}\n${stderr}`);
  }

  // The port is free when picked but may be taken before postgres binds it: retry with another.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const log = openSync(logFile, 'a');
    const [command, args] = run(path.join(bin, 'postgres'), [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=300',
      // In the data dir (thrown away with it) rather than /dev/shm, where a killed server leaves files.
      '-c',
      'dynamic_shared_memory_type=mmap',
    ]);
    const child = spawn(command, args, { cwd: dir, detached: true, stdio: ['ignore', log, log] });
    let spawnError: Error | undefined;
    child.once('error', (error) => {
      spawnError = new Error(`cannot run ${command} (${error.message})`);
    });
    const watchdog = child.pid === undefined ? undefined : startWatchdog(child.pid, dir);
    const onExit = () => {
      killGroup(child);
      removeSysvSegment(dataDir);
      rmSync(dir, { recursive: true, force: true });
      if (watchdog) killGroup(watchdog);
    };
    process.once('exit', onExit);
    try {
      await waitUntilAccepting(port, child, () => spawnError);
    } catch (error) {
      lastError = error;
      killGroup(child);
      await exitOf(child);
      if (watchdog) killGroup(watchdog);
      process.removeListener('exit', onExit);
      continue;
    }
    return serverHandle(child, port, dir, dataDir, logFile, onExit, watchdog);
  }
  const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`PostgreSQL did not start: ${String(lastError)}\n--- postgres.log (end) ---\n${tail}`);
}

function serverHandle(
  child: ChildProcess,
  port: number,
  dir: string,
  dataDir: string,
  logFile: string,
  onExit: () => void,
  watchdog: ChildProcess | undefined,
): PgTestServer {
  const url = (database = 'postgres') =>
    `postgres://${USER}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  let counter = 0;
  let schemaCounter = 0;
  let schemas: Promise<string> | undefined;
  // CREATE DATABASE copies template1 and fails when another session is using it: one at a time.
  let creating: Promise<unknown> = Promise.resolve();
  return {
    pid: child.pid as number,
    port,
    url,
    logFile,
    createDatabase(name) {
      const database = name ?? `quire_test_${process.pid}_${++counter}`;
      if (!/^[a-z_][a-z0-9_]*$/.test(database)) {
        return Promise.reject(new Error(`unsafe database name ${database}`));
      }
      const created = creating.then(async () => {
        const client = new pg.Client({ connectionString: url() });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${database}" STRATEGY FILE_COPY`);
        } finally {
          await client.end();
        }
        return url(database);
      });
      creating = created.catch(() => undefined);
      return created;
    },
    async createSchema() {
      schemas ??= this.createDatabase(`quire_schemas_${process.pid}`);
      const base = await schemas;
      const schema = `s${++schemaCounter}`;
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA ${schema}`);
      } finally {
        await client.end();
      }
      return `${base}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    },
    async stop() {
      process.removeListener('exit', onExit);
      if (watchdog) killGroup(watchdog);
      if (child.exitCode === null && child.signalCode === null) {
        // Immediate shutdown: the postmaster stops its backends and removes its shared memory.
        try {
          process.kill(child.pid as number, 'SIGQUIT');
        } catch {
          // Already gone.
        }
        let timer: NodeJS.Timeout | undefined;
        const stopped = await Promise.race([
          exitOf(child).then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), STOP_TIMEOUT_MS);
          }),
        ]);
        clearTimeout(timer);
        if (!stopped) {
          killGroup(child);
          await exitOf(child);
          removeSysvSegment(dataDir);
        }
      }
      // Backends the postmaster did not reap (it was SIGKILLed by a test, say) go with the group.
      killGroup(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Retries a connection until the server accepts it (the postmaster is up and recovery is done). */
async function waitUntilAccepting(
  port: number,
  child: ChildProcess,
  spawnError: () => Error | undefined,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last: unknown;
  while (Date.now() < deadline) {
    const failed = spawnError();
    if (failed) throw failed;
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited (${child.exitCode ?? child.signalCode})`);
    }
    const client = new pg.Client({
      connectionString: `postgres://${USER}@127.0.0.1:${port}/postgres`,
      connectionTimeoutMillis: 2_000,
    });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (error) {
      last = error;
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw last ?? new Error('timed out');
}

/**
 * The 'exit' handler does not run when the test process is killed by a signal (as the test runner
 * does to its workers), so a detached shell waits for this process to go and then stops the server:
 * an immediate shutdown (which frees the shared memory), SIGKILL to the group if that hangs, and the
 * temp dir removed.
 */
function startWatchdog(postmasterPid: number, dir: string): ChildProcess {
  const script = [
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`,
    `kill -QUIT ${postmasterPid} 2>/dev/null`,
    `for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 ${postmasterPid} 2>/dev/null || break; sleep 0.5; done`,
    `kill -KILL -${postmasterPid} 2>/dev/null`,
    `rm -rf '${dir}'`,
  ].join('\n');
  const watchdog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
  return watchdog;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * A SIGKILLed postmaster leaves its small System V interlock segment behind; its id is on the
 * 7th line of postmaster.pid. Best effort, synchronous (runs in an 'exit' handler).
 */
function removeSysvSegment(dataDir: string): void {
  try {
    const line = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[6] ?? '';
    const shmId = line.trim().split(/\s+/)[1];
    if (shmId && /^\d+$/.test(shmId)) execFileSync('ipcrm', ['-m', shmId], { stdio: 'ignore' });
  } catch {
    // No pid file, no segment, or no ipcrm.
  }
}
