// Runs store-child.ts in several Node processes at once (TypeScript loaded by our hooks, no build
// step): each opens the database, and only when all are ready are they told to go together.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const register = fileURLToPath(new URL('./ts-register.mjs', import.meta.url));
const script = fileURLToPath(new URL('./store-child.ts', import.meta.url));

interface Running {
  child: ChildProcess;
  ready: Promise<void>;
  outcome: Promise<unknown>;
}

function start(mode: 'migrate' | 'claim' | 'rate', url: string, worker: string): Running {
  const child = spawn(process.execPath, ['--import', register, script, mode, url, worker], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout! });
  const ready = new Promise<void>((resolve, reject) => {
    reader.on('line', (line) => {
      lines.push(line);
      if (line === 'ready') resolve();
    });
    child.on('exit', () => reject(new Error(`store child ${worker} exited before ready:\n${stderr}`)));
  });
  const outcome = once(child, 'exit').then(([code]) => {
    const last = lines.at(-1);
    if (code !== 0 || !last || last === 'ready')
      throw new Error(`store child ${worker} failed (${code}):\n${stderr}`);
    return JSON.parse(last) as unknown;
  });
  return { child, ready, outcome };
}

/** Starts one process per worker name, releases them together and returns their JSON outcomes. */
export async function runStoreChildren<T>(
  mode: 'migrate' | 'claim' | 'rate',
  url: string,
  workers: string[],
): Promise<T[]> {
  const running = workers.map((worker) => start(mode, url, worker));
  try {
    await Promise.all(running.map((r) => r.ready));
    for (const r of running) r.child.stdin?.end('go\n');
    return (await Promise.all(running.map((r) => r.outcome))) as T[];
  } finally {
    for (const r of running) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  }
}
