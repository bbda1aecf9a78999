// unlock: removes encryption given the user or the owner password.
import { Type } from '@sinclair/typebox';
import { checkPageLimit, engineCall, onlyInput, openInput } from './lib/inputs.js';
import { outputName, workFile } from './lib/output-name.js';
import { defineTool } from './lib/types.js';

const options = Type.Object(
  {
    // Empty is allowed: an owner-only file opens with the empty user password.
    password: Type.String({
      maxLength: 1024,
      pattern: '^[^\\r\\n]*$',
      description: 'The user or the owner password of the document.',
    }),
  },
  { additionalProperties: false, examples: [{ password: 'secret' }, { password: '' }] },
);

export const unlockTool = defineTool({
  name: 'unlock',
  title: 'Remove a password',
  description:
    'Writes an unencrypted copy of a password-protected PDF; a wrong password fails with invalid_password.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'] },
  options,
  secretOptions: ['password'],
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 10, decrypt: 90 },
  async run(ctx) {
    const input = onlyInput(ctx);
    const password = ctx.options.password;
    ctx.progress.step('inspect');
    const state = await ctx.engines.qpdf.encryptionState(input.path, engineCall(ctx));
    // Opening with the password is what raises invalid_password, before any output is written.
    checkPageLimit(await openInput(ctx, input, password), ctx.limits.maxPages);

    ctx.progress.step('decrypt');
    const output = workFile(ctx.workDir, 'unlocked');
    const call = engineCall(ctx, (done, total) => ctx.progress.fraction(done, total));
    await ctx.engines.qpdf.decrypt(input.path, output, { ...call, password });
    return {
      path: output,
      name: outputName(input.name, 'unlocked'),
      contentType: 'application/pdf',
      facts: { was_encrypted: state !== 'none' },
    };
  },
});
