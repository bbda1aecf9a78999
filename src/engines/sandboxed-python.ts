// One run of a Python driver in the document sandbox (process/sandbox.ts), as pdf2docx and PyMuPDF
// run: the engine's venv mounted read-only, and an exchange folder, the only writable path, holding
// the job's input and the driver. Both are copied in so the sandbox user can read them (the job's
// files and the checkout may be private to the service's user).
import { chmod, copyFile, mkdir, mkdtemp, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { makeSandboxDir, requireSandbox, sandboxArgv, writeSandboxPasswd } from '../process/sandbox.js';

/** Where the exchange folder is inside the sandbox. */
export const EXCHANGE = '/exchange';

export interface SandboxedPythonRun {
  /** The engine's name, for the refusal when no sandbox can be had. */
  engine: string;
  workDir: string;
  venv: string;
  /** Files (or a driver folder: its .py files) to copy into the exchange folder, under these names. */
  copies: ReadonlyArray<readonly [from: string, name: string]>;
  /** The interpreter's arguments, with paths under EXCHANGE. */
  args: string[];
}

/** Prepares the exchange folder and returns it with the sandboxed command to run. */
export async function sandboxedPython(
  run: SandboxedPythonRun,
): Promise<{ exchange: string; command: string; args: string[] }> {
  const identity = await requireSandbox(run.engine);
  // A folder of its own per run: a tool may run the same engine twice in one job (detect-pii).
  const dir = await mkdtemp(path.join(run.workDir, `${run.engine}-`));
  const exchange = await makeSandboxDir(path.join(dir, 'exchange'), identity);
  for (const [from, name] of run.copies) await copyReadable(from, path.join(exchange, name));
  const [command, args] = sandboxArgv(
    {
      identity,
      mounts: [
        { host: run.venv, at: run.venv },
        { host: exchange, at: EXCHANGE, writable: true },
      ],
      passwd: await writeSandboxPasswd(dir, identity),
      home: EXCHANGE,
    },
    `${run.venv}/bin/python`,
    run.args,
  );
  return { exchange, command, args };
}

async function copyReadable(from: string, to: string): Promise<void> {
  if (!(await stat(from)).isDirectory()) {
    await copyFile(from, to);
    await chmod(to, 0o644);
    return;
  }
  await mkdir(to, { mode: 0o755 });
  await chmod(to, 0o755);
  for (const name of (await readdir(from)).filter((n) => n.endsWith('.py')))
    await copyReadable(path.join(from, name), path.join(to, name));
}
