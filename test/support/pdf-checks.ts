// Independent checks on engine outputs, run with the real binaries (never byte comparisons).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

async function qpdfExit(args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await exec('qpdf', args);
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '' };
  }
}

export async function pageCount(file: string): Promise<number> {
  const { stdout } = await qpdfExit(['--show-npages', file]);
  return Number(stdout.trim());
}

/** `qpdf --check` passes: exit 0 (no errors, no warnings). */
export async function checkPasses(file: string): Promise<boolean> {
  return (await qpdfExit(['--check', file])).code === 0;
}

/** qpdf --requires-password: 0 = a password is needed, 2 = not encrypted, 3 = opens without one. */
export async function requiresPassword(file: string): Promise<number> {
  return (await qpdfExit(['--requires-password', file])).code;
}

export async function rotations(file: string): Promise<number[]> {
  const { stdout } = await exec('pdfinfo', ['-f', '1', '-l', String(await pageCount(file)), file]);
  return [...stdout.matchAll(/^Page\s+\d+ rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
}

export async function pageText(file: string, page: number): Promise<string> {
  const { stdout } = await exec('pdftotext', ['-f', String(page), '-l', String(page), file, '-']);
  return stdout.replace(/\s+/g, ' ').trim();
}

export async function outlineTitles(file: string): Promise<string[]> {
  const { stdout } = await exec('qpdf', ['--json=2', '--json-key=outlines', file]);
  const walk = (nodes: { title: string; kids: unknown[] }[]): string[] =>
    nodes.flatMap((n) => [n.title, ...walk(n.kids as { title: string; kids: unknown[] }[])]);
  return walk((JSON.parse(stdout) as { outlines: { title: string; kids: unknown[] }[] }).outlines);
}
