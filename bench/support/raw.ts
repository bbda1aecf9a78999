// Runs an engine command directly (no shell, no wrapper) and times it: the baseline every
// benchmark compares the service against.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface RawRun {
  ms: number;
  exitCode: number | null;
  stderr: string;
}

export function runRaw(argv: readonly string[], cwd: string, timeoutMs = 120_000): Promise<RawRun> {
  const [file, ...args] = argv;
  const started = performance.now();
  const child = spawn(file!, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4096);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - started, exitCode, stderr });
    });
  });
}

/** Like runRaw, but fails on any exit code other than those given (qpdf exits 3 for warnings). */
export async function runRawOk(argv: readonly string[], cwd: string, okCodes = [0]): Promise<RawRun> {
  const result = await runRaw(argv, cwd);
  if (!okCodes.includes(result.exitCode ?? -1))
    throw new Error(`${argv[0]} exited with ${result.exitCode}: ${result.stderr.slice(-500)}`);
  return result;
}

/** Peak RSS of one run of `argv`, in bytes, measured by GNU time (a separate, untimed run). */
export async function peakRssOf(argv: readonly string[], cwd: string): Promise<number | undefined> {
  const child = spawn('/usr/bin/time', ['-f', 'QUIRE_BENCH_MAXRSS=%M', ...argv], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8192);
  });
  const ok = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(false));
    child.once('close', () => resolve(true));
  });
  const kib = ok ? /QUIRE_BENCH_MAXRSS=(\d+)/.exec(stderr)?.[1] : undefined;
  return kib === undefined ? undefined : Number(kib) * 1024;
}
