// unlock: removes encryption given the user or the owner password.
import { Type } from '@sinclair/typebox';
import { engineCall, engineCallWithProgress } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { defineTool } from './framework/types.js';

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
  group: 'Pages and structure',
  keywords: ['decrypt', 'remove password', 'unprotect'],
  description:
    'Writes an unencrypted copy of a password-protected PDF; a wrong password fails with invalid_password.',
  inputs: {
    minFiles: 1,
    maxFiles: 1,
    accepts: ['application/pdf'],
    // Opening with the password is what raises invalid_password, before any output is written.
    opens: 'pdf',
    passwordOption: 'password',
  },
  options,
  encryption: 'changes',
  secretOptions: ['password'],
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 10, decrypt: 90 },
  async run(ctx) {
    const { input } = await onlyPdf(ctx);
    const state = await ctx.engines.qpdf.encryptionState(input.path, engineCall(ctx));

    ctx.progress.step('decrypt');
    const output = workFile(ctx.workDir, 'unlocked');
    await ctx.engines.qpdf.decrypt(input.path, output, {
      ...engineCallWithProgress(ctx),
      password: ctx.options.password,
    });
    return {
      path: output,
      name: outputName(input.name, 'unlocked'),
      contentType: 'application/pdf',
      facts: { was_encrypted: state !== 'none' },
    };
  },
});
