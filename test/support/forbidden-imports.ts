// Runs a script in a fresh Node process whose module resolver throws on given packages, after the
// composition root's modules from dist/ (their whole static import graph) have loaded: shows that a
// driver is loaded only when its URL scheme is used.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { repoRoot } from './corpus.js';

/**
 * `packages` are names (`pg`) or scopes (`@aws-sdk/`); `body` runs as an ES module with
 * `openBlobStore` and `openDatabase` in scope. A refused import fails the run with
 * "forbidden import: <specifier>" in its output.
 */
export async function runWithImportsForbidden(
  packages: readonly string[],
  body: string,
): Promise<{ ok: boolean; output: string }> {
  const hook = `const packages = ${JSON.stringify(packages)};
  export async function resolve(specifier, context, next) {
    if (packages.some((p) => p.endsWith('/') ? specifier.startsWith(p) : specifier === p || specifier.startsWith(p + '/')))
      throw new Error('forbidden import: ' + specifier);
    return next(specifier, context);
  }`;
  const dist = (file: string) => JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', file)).href);
  const script = `
    import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
    await import(${dist('cli/runtime.js')});
    await import(${dist('http/app.js')});
    const { openBlobStore } = await import(${dist('blobs/open.js')});
    const { openDatabase } = await import(${dist('store/open.js')});
    ${body}
  `;
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: repoRoot, timeout: 30_000 },
    );
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
