// protect: encrypts a PDF with AES (qpdf) behind a user and/or owner password and permissions.
import { randomBytes } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { Permissions } from '../engines/qpdf/encrypt.js';
import { QuireError } from '../errors/quire-error.js';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { StringEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';

/** qpdf reads passwords from the first line of a file, so a line break could never be typed back. */
export const PasswordSchema = (description: string) =>
  Type.String({ minLength: 1, maxLength: 1024, pattern: '^[^\\r\\n]*$', description });

const permission = (description: string) => Type.Optional(Type.Boolean({ default: true, description }));

const PermissionsSchema = Type.Object(
  {
    print: permission('Allow printing.'),
    print_high_res: permission('Allow printing at full resolution (otherwise degraded printing only).'),
    modify: permission('Allow changes other than annotating, filling forms and assembling.'),
    copy: permission('Allow copying or extracting text and images.'),
    annotate: permission('Allow adding or changing comments.'),
    fill_forms: permission('Allow filling in form fields.'),
    accessibility: permission('Allow extraction for accessibility (screen readers).'),
    assemble: permission('Allow inserting, deleting and rotating pages.'),
  },
  {
    additionalProperties: false,
    description: 'What a reader without the owner password may do; all allowed by default.',
  },
);

const options = Type.Object(
  {
    user_password: Type.Optional(PasswordSchema('Password needed to open the document.')),
    owner_password: Type.Optional(
      PasswordSchema('Password that lifts the permission restrictions; a random one is used when omitted.'),
    ),
    encryption: Type.Optional(
      StringEnum(['aes-256', 'aes-128'], { default: 'aes-256', description: 'Cipher.' }),
    ),
    permissions: Type.Optional(PermissionsSchema),
  },
  {
    additionalProperties: false,
    examples: [
      { user_password: 'open-me' },
      { owner_password: 'admin', encryption: 'aes-128', permissions: { print: false, copy: false } },
    ],
    description: 'At least one of user_password and owner_password is required.',
    // Enforced by the published schema, so the request is refused (400) before the upload is stored.
    anyOf: [{ required: ['user_password'] }, { required: ['owner_password'] }],
  },
);

function resolvePermissions(given: Static<typeof PermissionsSchema> = {}): Permissions {
  return {
    print: given.print ?? true,
    print_high_res: given.print_high_res ?? true,
    modify: given.modify ?? true,
    copy: given.copy ?? true,
    annotate: given.annotate ?? true,
    fill_forms: given.fill_forms ?? true,
    accessibility: given.accessibility ?? true,
    assemble: given.assemble ?? true,
  };
}

export const protectTool = defineTool({
  name: 'protect',
  title: 'Protect with a password',
  group: 'Pages and structure',
  keywords: ['encrypt', 'password', 'secure', 'lock'],
  description: 'Encrypts the PDF (AES-256 or AES-128) with a user and/or owner password and permissions.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf', early: true },
  options,
  // Its purpose: the input's own encryption, if any, gives way to the one asked for.
  encryption: 'changes',
  secretOptions: ['user_password', 'owner_password'],
  output: { contentType: 'application/pdf' },
  engines: ['qpdf'],
  steps: { inspect: 10, encrypt: 90 },
  checkJob({ user_password: user, owner_password: owner }) {
    if (user === undefined && owner === undefined) {
      throw new QuireError('invalid_options', 'Give user_password, owner_password or both');
    }
  },
  async run(ctx) {
    const { user_password: user, owner_password: owner } = ctx.options;
    const { input } = await onlyPdf(ctx);
    ctx.progress.step('encrypt');
    const output = workFile(ctx.workDir, 'protected');
    await ctx.engines.qpdf.encrypt(
      input.path,
      output,
      {
        userPassword: user ?? '',
        // An owner password equal to nothing would let anyone lift the restrictions.
        ownerPassword: owner ?? randomBytes(24).toString('base64url'),
        algorithm: ctx.options.encryption ?? 'aes-256',
        permissions: resolvePermissions(ctx.options.permissions),
      },
      engineCall(ctx),
    );
    return {
      path: output,
      name: outputName(input.name, 'protected'),
      contentType: 'application/pdf',
      facts: { encryption: ctx.options.encryption ?? 'aes-256', requires_password: user !== undefined },
      // A later step of the job opens the output with it.
      ...(user === undefined ? {} : { password: user }),
    };
  },
});
