// The engine sandbox itself (src/process/sandbox.ts), probed from inside by a real program run
// through the real runner: what it can read, which user it is, what it can reach on the network.
// And the pooled engines really run in it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChromium } from '../../src/engines/chromium/chromium.js';
import { createLibreoffice } from '../../src/engines/libreoffice/libreoffice.js';
import { run } from '../../src/process/runner.js';
import {
  makeSandboxDir,
  requireSandbox,
  SANDBOX_USER,
  type SandboxIdentity,
  sandboxArgv,
  writeSandboxPasswd,
} from '../../src/process/sandbox.js';
import { A4_PRINT, officeDocuments } from '../support/heavy-fixtures.js';
import { pageText } from '../support/pdf.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'quire-hostile-sandbox-'));
let identity: SandboxIdentity;
let exchange: string;
let passwd: string;
let tcp: net.Server;
let tcpPort = 0;
const connections: string[] = [];

beforeAll(async () => {
  identity = await requireSandbox('test');
  exchange = await makeSandboxDir(path.join(root, 'exchange'), identity);
  passwd = await writeSandboxPasswd(root, identity);
  writeFileSync(path.join(exchange, 'mine.txt'), 'own file Pangolin1\n', { mode: 0o644 });
  mkdirSync(path.join(root, 'data'));
  writeFileSync(path.join(root, 'data', 'server-secret'), 'ServerSecret5\n', { mode: 0o600 });
  tcp = net.createServer((s) => {
    connections.push(String(s.remotePort));
    s.destroy();
  });
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  tcpPort = (tcp.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((r) => tcp.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

/** Runs a Python snippet in the sandbox with the exchange folder bound; returns its stdout. */
async function inside(code: string): Promise<string> {
  const [file, argv] = sandboxArgv(
    { identity, mounts: [{ host: exchange, at: '/sandbox/exchange', writable: true }], passwd, home: '/tmp' },
    '/usr/bin/python3',
    ['-c', code],
  );
  const result = await run(file, argv, { cwd: root, timeoutMs: 30_000, captureStdout: true });
  expect(result.exitCode, result.stderrTail).toBe(0);
  return result.stdout;
}

const READ = `
for p in PATHS:
    try:
        print(p, 'READ', open(p).read()[:40].replace('\\n', ' '))
    except Exception as e:
        print(p, 'DENIED', type(e).__name__)
`;

describe('the engine sandbox', () => {
  it("sees its own exchange folder but not /etc/passwd, /etc/shadow, the server secret or the host's /tmp", async () => {
    const paths = [
      '/sandbox/exchange/mine.txt',
      '/etc/shadow',
      path.join(root, 'data', 'server-secret'),
      path.join(root, 'exchange', 'mine.txt'),
      '/root/.bashrc',
    ];
    const out = await inside(`PATHS = ${JSON.stringify(paths)}\n${READ}\nprint(open('/etc/passwd').read())`);
    expect(out).toContain('/sandbox/exchange/mine.txt READ own file Pangolin1');
    for (const p of paths.slice(1)) expect(out).toContain(`${p} DENIED`);
    // The stand-in passwd names only the engine's user.
    expect(out).not.toContain('root:x:0');
    expect(out).toContain(`${SANDBOX_USER}:x:${identity.uid}:`);
  });

  it('runs with no capabilities and, under root, as the quire-sandbox user', async () => {
    const out = await inside(
      "import os\nprint(os.getuid(), os.getgid(), os.getgroups())\nprint([l for l in open('/proc/self/status') if l.startswith('CapEff')][0])",
    );
    expect(out).toContain(`${identity.uid} ${identity.gid} []`);
    expect(out).toMatch(/CapEff:\s+0000000000000000/);
    if (process.getuid?.() === 0) expect(identity.uid).not.toBe(0);
  });

  it('has no network: the host loopback is unreachable and lo is the only interface', async () => {
    const out = await inside(`
import socket
try:
    socket.create_connection(('127.0.0.1', ${tcpPort}), timeout=2); print('tcp CONNECTED')
except Exception as e:
    print('tcp', type(e).__name__)
print(sorted(n.split(':')[0].strip() for n in open('/proc/net/dev').readlines()[2:]))
`);
    expect(out).not.toContain('CONNECTED');
    expect(out).toContain("['lo']");
    expect(connections).toEqual([]);
  });
});

/** Processes below this test process (other helpers' engines on the same host are not ours). */
function ourDescendants(): { pid: number; uid: number; program: string }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,uid=,comm=,args='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .map(([pid, ppid, uid, , program]) => ({
      pid: Number(pid),
      ppid: Number(ppid),
      uid: Number(uid),
      program: program ?? '',
    }));
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows)
      if (ours.has(r.ppid) && !ours.has(r.pid)) {
        ours.add(r.pid);
        grew = true;
      }
  }
  return rows.filter((r) => ours.has(r.pid) && r.pid !== process.pid);
}

/** CPU time (ms) of each of our Chromium renderer processes. */
function rendererCpuMs(): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const p of ourDescendants()) {
    try {
      if (!readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const stat = readFileSync(`/proc/${p.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(p.pid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // Exited while we looked.
    }
  }
  return cpu;
}

/** Renderers that used more than half a core over one second: a script loop still running. */
async function spinningRenderers(): Promise<number[]> {
  const before = rendererCpuMs();
  await new Promise((r) => setTimeout(r, 1_000));
  return [...rendererCpuMs()].filter(([pid, ms]) => ms - (before.get(pid) ?? ms) > 500).map(([pid]) => pid);
}

describe('the sandbox of a service that is not root (the container image runs as uid 10001)', () => {
  it('builds the same sandbox through a user namespace, keeping the uid and no capabilities', async () => {
    const nobody = { uid: 65534, gid: 65534, dropFromRoot: false };
    const [file, argv] = sandboxArgv(
      { identity: nobody, mounts: [], passwd: '/dev/null', home: '/tmp' },
      '/usr/bin/python3',
      ['-c', "import os\nprint(os.getuid(), os.listdir('/'), open('/proc/net/dev').read().count(':'))"],
    );
    // Drop to nobody first, as a non-root service would be; bwrap then has no privilege but a userns.
    const asNobody = ['--reuid=65534', '--regid=65534', '--clear-groups', '--', file, ...argv];
    const result = await run('/usr/bin/setpriv', asNobody, {
      cwd: '/tmp',
      timeoutMs: 30_000,
      captureStdout: true,
    });
    expect(result.exitCode, result.stderrTail).toBe(0);
    expect(result.stdout).toContain('65534');
    expect(result.stdout).not.toContain("'root'");
    expect(result.stdout).not.toContain("'home'");
    // One device in /proc/net/dev: lo.
    expect(result.stdout.trim().endsWith(' 1')).toBe(true);
  });
});

describe('the pooled engines', () => {
  it('run LibreOffice and Chromium as the sandbox user, never as the service user', async () => {
    const office = createLibreoffice({
      size: 1,
      recycleAfter: 10,
      workRoot: path.join(root, 'o'),
      memoryBytes: 2 * 1024 ** 3,
      timeoutMs: 60_000,
    });
    const chromium = createChromium({
      size: 1,
      recycleAfter: 10,
      workRoot: path.join(root, 'b'),
      timeoutMs: 60_000,
    });
    try {
      const { docx } = officeDocuments('Sandboxed3');
      await office.toPdf(docx, path.join(root, 'o.pdf'), { landscape: false }, { workDir: root });
      const site = path.join(root, 'site');
      mkdirSync(site);
      writeFileSync(path.join(site, 'index.html'), '<p>x</p>');
      await chromium.htmlToPdf(site, 'index.html', path.join(root, 'b.pdf'), A4_PRINT, { workDir: root });
      const engines = ourDescendants().filter((p) => /(soffice\.bin|\/chromium\/chromium)$/.test(p.program));
      expect(engines.length).toBeGreaterThanOrEqual(2);
      for (const p of engines) expect(p.uid, p.program).toBe(identity.uid);
    } finally {
      await Promise.all([office.close(), chromium.close()]);
    }
  }, 180_000);

  it('stops a page stuck in a script loop at its limit while the browser prints other pages', async () => {
    const chromium = createChromium({
      size: 2,
      recycleAfter: 10,
      workRoot: path.join(root, 'h'),
      timeoutMs: 60_000,
    });
    try {
      const site = path.join(root, 'hang');
      mkdirSync(site);
      writeFileSync(path.join(site, 'index.html'), '<p>spin</p><script>for (;;) {}</script>');
      writeFileSync(path.join(site, 'ok.html'), '<p>after Tapir8</p>');
      writeFileSync(path.join(site, 'beside.html'), '<p>beside Okapi5</p>');
      const print = (entry: string, out: string, timeoutMs?: number) =>
        chromium.htmlToPdf(site, entry, path.join(root, out), A4_PRINT, {
          workDir: root,
          ...(timeoutMs ? { timeoutMs } : {}),
        });
      const [hung, beside] = await Promise.allSettled([
        print('index.html', 'hang.pdf', 4_000),
        print('beside.html', 'beside.pdf'),
      ]);
      expect(hung).toMatchObject({ status: 'rejected', reason: { code: 'timeout' } });
      expect(beside.status, JSON.stringify(beside)).toBe('fulfilled');
      expect(pageText(path.join(root, 'beside.pdf'))).toContain('Okapi5');
      // The stuck page's context is closed at its limit, which ends its renderer: nothing spins on
      // (the browser itself stays for the other pages, as the next print shows).
      expect(await spinningRenderers()).toEqual([]);
      await print('ok.html', 'ok.pdf');
      expect(pageText(path.join(root, 'ok.pdf'))).toContain('Tapir8');
    } finally {
      await chromium.close();
    }
    // Closing the engine takes the browser, its sandbox and every renderer down.
    let left = ourDescendants().filter((p) => /chromium|bwrap/.test(p.program));
    for (let i = 0; i < 20 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = ourDescendants().filter((p) => /chromium|bwrap/.test(p.program));
    }
    expect(left).toEqual([]);
  }, 120_000);
});
