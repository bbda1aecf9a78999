// The encryption rule (tools/framework/encryption-rule.ts) on real qpdf, through the runner's opening: a tool
// that hands back the decrypted copy it was given unchanged (compress finding no gain does so) gets the
// input as it came, not a copy encrypted again; one that changes it gets the input's encryption copied.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { copyFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { onlyPdf, openAndRun } from '../../src/tools/framework/inputs.js';
import { workFile } from '../../src/tools/framework/output-name.js';
import { defineTool } from '../../src/tools/framework/types.js';
import { corpus, makeToolContext, type TestContext } from '../support/tool-context.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-rule-'));
const locked = path.join(scratch, 'locked.pdf');
execFileSync('qpdf', [
  '--encrypt',
  'u-pw',
  'o-pw',
  '256',
  '--',
  corpus('pypdf-samples__pdflatex-4-pages.pdf'),
  locked,
]);

/** A tool that returns the file it was handed, as it was (`rotate: true`: turned by qpdf instead). */
const echoTool = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Returns its input.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options: Type.Object({ rotate: Type.Optional(Type.Boolean()) }),
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 10, run: 90 },
  async run(ctx) {
    const { input } = await onlyPdf(ctx);
    const output = workFile(ctx.workDir, 'echo');
    if (ctx.options.rotate)
      await ctx.engines.qpdf.rotate(input.path, output, 90, '1-z', { workDir: ctx.workDir });
    else await copyFile(input.path, output);
    return { path: output, name: 'echo.pdf', contentType: 'application/pdf' };
  },
});

const contexts: TestContext<unknown>[] = [];
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.cleanup();
});

async function runEcho(options: Record<string, unknown>) {
  const test = await makeToolContext({ tool: echoTool, files: [locked], options });
  contexts.push(test as TestContext<unknown>);
  return openAndRun(echoTool, test.ctx);
}

describe('encryption rule', () => {
  it('gives back the input as it came when the tool changed nothing in its decrypted copy', async () => {
    const output = await runEcho({ password: 'u-pw' });
    expect(output.facts).toEqual({ encryption: 'kept' });
    expect((await readFile(output.path)).equals(await readFile(locked))).toBe(true);
    expect(output.password).toBe('u-pw');
  });

  it('copies the input’s encryption onto a changed result', async () => {
    const output = await runEcho({ password: 'u-pw', rotate: true });
    expect(output.facts).toEqual({ encryption: 'kept' });
    expect((await readFile(output.path)).equals(await readFile(locked))).toBe(false);
    const shown = execFileSync('qpdf', ['--password=o-pw', '--show-encryption', output.path]).toString();
    expect(shown).toMatch(/^R = 6$/m);
    expect(shown).toMatch(/Supplied password is owner password/);
  });
});
