// Running a tool (a chain of steps, or a saved recipe) over files from the command line: one job for a tool that
// takes several files (merge), else one job per file with bounded concurrency; each result written
// to -o (a file for one result, a directory for several) and reported per job.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Quire } from '../client.js';
import { QuireError } from '../errors.js';
import type { Job } from '../jobs.js';
import type { Step } from '../tool-options.js';
import { describe, EXIT, exitCodeOf, UsageError } from './exit-codes.js';
import type { Reporter } from './progress.js';

export interface RunSpec {
  tool?: string;
  options?: Record<string, unknown>;
  steps?: Step[];
  /** A saved recipe by name or id, optionally @version. */
  recipe?: string;
  files: string[];
  /** Whether one job takes all files (a tool with max_files > 1, first step of a chain included). */
  together: boolean;
  output?: string;
  concurrency: number;
  json: boolean;
  reporter: Reporter;
}

async function isDirectory(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isDirectory() ?? false;
}

/** Where a result goes: -o itself for a single result to a file, else inside the -o directory. */
async function destination(spec: RunSpec, jobs: number, job: Job): Promise<string> {
  const name = job.result?.name ?? `${job.id}.out`;
  const output = spec.output;
  if (output === undefined) return path.resolve(name);
  if (jobs > 1 || output.endsWith('/') || (await isDirectory(output))) {
    await mkdir(output, { recursive: true });
    return path.join(output, name);
  }
  return output;
}

async function runOne(quire: Quire, spec: RunSpec, inputs: string[], jobs: number): Promise<number> {
  const label = inputs.length === 1 ? path.basename(inputs[0] ?? '') : `${inputs.length} files`;
  let job: Job | undefined;
  try {
    const common = {
      inputs,
      onUploadProgress: (p: { bytesSent: number; bytesTotal: number }) =>
        spec.reporter.upload(label, p.bytesSent, p.bytesTotal),
    };
    const created = spec.recipe
      ? await quire.jobs.create({ recipe: spec.recipe, ...common })
      : spec.steps
        ? await quire.jobs.create({ steps: spec.steps, ...common })
        : await quire.jobs.create({ tool: spec.tool ?? '', options: spec.options ?? {}, ...common });
    job = created;
    job = await quire.jobs.wait(created.id, { onProgress: (p) => spec.reporter.job(label, p) });
    const to = await destination(spec, jobs, job);
    const download = await quire.jobs.download(job.id, { to });
    if (spec.json)
      process.stdout.write(
        `${JSON.stringify({ input: inputs, id: job.id, tool: job.tool, status: job.status, output: to, bytes: download.bytes })}\n`,
      );
    return EXIT.ok;
  } catch (error) {
    const failed = error instanceof QuireError ? error.job : undefined;
    if (spec.json) {
      const code = error instanceof QuireError ? error.code : 'error';
      const detail = error instanceof QuireError ? error.detail : String(error);
      process.stdout.write(
        `${JSON.stringify({ input: inputs, id: failed?.id ?? job?.id ?? null, status: failed?.status ?? 'error', error: { code, message: detail } })}\n`,
      );
    } else process.stderr.write(`${label}: ${describe(error)}\n`);
    return exitCodeOf(error);
  }
}

/** Runs every job; the exit code is the worst outcome (server trouble over a failed job over bad input). */
export async function runJobs(quire: Quire, spec: RunSpec): Promise<number> {
  if (spec.files.length === 0) throw new UsageError('no input files');
  for (const file of spec.files)
    if (!(await stat(file).catch(() => undefined))?.isFile()) throw new UsageError(`not a file: ${file}`);
  const groups = spec.together ? [spec.files] : spec.files.map((f) => [f]);
  const codes: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < groups.length; i = next++)
      codes.push(await runOne(quire, spec, groups[i] ?? [], groups.length));
  };
  try {
    await Promise.all(Array.from({ length: Math.min(spec.concurrency, groups.length) }, worker));
  } finally {
    spec.reporter.stop();
  }
  const rank = (code: number) =>
    [EXIT.ok, EXIT.badInput, EXIT.jobFailed, EXIT.serverTrouble].indexOf(code as 0);
  return codes.reduce((worst, code) => (rank(code) > rank(worst) ? code : worst), EXIT.ok);
}
