// Engine tier: protect, unlock and the typed errors for encrypted, damaged and out-of-range input.
import { describe, expect, it } from 'vitest';
import { compressTool } from '../../src/tools/compress/tool.js';
import { openAndRun } from '../../src/tools/framework/inputs.js';
import { infoTool } from '../../src/tools/info/tool.js';
import { protectTool } from '../../src/tools/protect.js';
import { rotateTool } from '../../src/tools/rotate.js';
import { splitTool } from '../../src/tools/split.js';
import { unlockTool } from '../../src/tools/unlock.js';
import { checkPasses, pageCount, requiresPassword } from '../support/pdf-checks.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const runs = useToolRuns();

const { run } = runs;

const LATEX4 = 'pypdf-samples__pdflatex-4-pages.pdf';

describe('protect and unlock', () => {
  it('protects with a user password that unlock then removes', async () => {
    const { output } = await run(protectTool, [LATEX4], {
      user_password: 's3cret',
      permissions: { copy: false },
    });
    expect(await requiresPassword(output.path)).toBe(0);
    const unlocked = await run(unlockTool, [output.path], { password: 's3cret' });
    expect(await requiresPassword(unlocked.output.path)).toBe(2);
    expect(await pageCount(unlocked.output.path)).toBe(4);
    expect(await checkPasses(unlocked.output.path)).toBe(true);
  });

  it('with only an owner password the file opens without one (AES-128)', async () => {
    const { output } = await run(protectTool, [LATEX4], { owner_password: 'owner', encryption: 'aes-128' });
    expect(await requiresPassword(output.path)).toBe(3);
  });

  it('refuses protect without any password', async () => {
    await expect(run(protectTool, [LATEX4], {})).rejects.toMatchObject({ code: 'invalid_options' });
  });

  it('unlock with a wrong password fails invalid_password', async () => {
    await expect(run(unlockTool, ['qpdf__c-r4.pdf'], { password: 'nope' })).rejects.toMatchObject({
      code: 'invalid_password',
    });
  });

  it('unlocks with the owner password too', async () => {
    const { output } = await run(unlockTool, ['qpdf__enc-R3-V2-U-view-O-master.pdf'], { password: 'master' });
    expect(await requiresPassword(output.path)).toBe(2);
    expect(await pageCount(output.path)).toBe(30);
  });

  it('unlocks a non-ASCII AES-256 password (hôtel)', async () => {
    const { output } = await run(unlockTool, ['pdfium__encrypted_hello_world_r5.pdf'], { password: 'hôtel' });
    expect(await requiresPassword(output.path)).toBe(2);
    expect(await pageCount(output.path)).toBe(1);
  });
});

describe('typed input errors', () => {
  it('a user-password input to rotate fails pdf_encrypted', async () => {
    await expect(
      run(rotateTool, ['qpdf__enc-XI-R6-V5-U-view-O-master.pdf'], { angle: 90 }),
    ).rejects.toMatchObject({
      code: 'pdf_encrypted',
    });
  });

  it('an owner-only input opens without a password', async () => {
    const { output } = await run(rotateTool, ['qpdf__enc-XI-R6-V5-O-master.pdf'], { angle: 90 });
    expect(await pageCount(output.path)).toBe(30);
  });

  for (const file of [
    'ocrmypdf__invalid.pdf',
    'pdfplumber__empty.pdf',
    'pdflib__missing_xref_trailer_dict.pdf',
  ]) {
    it(`${file} fails pdf_corrupt in every tool`, async () => {
      for (const [tool, options] of [
        [rotateTool, { angle: 90 }],
        [compressTool, {}],
        [infoTool, {}],
      ] as const) {
        await expect(run(tool, [file], options)).rejects.toMatchObject({ code: 'pdf_corrupt' });
      }
    });
  }

  it('a repairable input is rewritten cleanly', async () => {
    const { output } = await run(rotateTool, ['pdfplumber__issue-848.pdf'], { angle: 90 });
    expect(await pageCount(output.path)).toBe(8);
    expect(await checkPasses(output.path)).toBe(true);
  });

  it('a page outside the document fails page_range_invalid', async () => {
    await expect(run(rotateTool, [LATEX4], { angle: 90, pages: '2-9' })).rejects.toMatchObject({
      code: 'page_range_invalid',
    });
    await expect(run(splitTool, [LATEX4], { mode: 'ranges', ranges: ['1-2', 'r5'] })).rejects.toMatchObject({
      code: 'page_range_invalid',
    });
  });

  it('more pages than the limit fails limit_pages_exceeded', async () => {
    await expect(
      run(rotateTool, ['pdfjs__tracemonkey.pdf'], { angle: 90 }, { maxPages: 10 }),
    ).rejects.toMatchObject({
      code: 'limit_pages_exceeded',
    });
  });

  it('a canceled job stops with an AbortedError, not a QuireError', async () => {
    const test = await runs.context({
      tool: compressTool,
      files: ['pdfjs__tracemonkey.pdf'],
      options: {},
    });
    const running = openAndRun(compressTool, test.ctx);
    setTimeout(() => test.abort.abort(new Error('canceled')), 150);
    await expect(running).rejects.toMatchObject({ name: 'AbortedError' });
  });
});
