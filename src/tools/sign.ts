// sign: a PAdES signature (B-B, or B-T when the server has a time-stamp authority) with a PKCS#12
// bundle given as a secret option, optionally visible and optionally certifying (DocMDP).
import { Type } from '@sinclair/typebox';
import { type FieldError, QuireError } from '../errors/quire-error.js';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { StringEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';

/**
 * A .p12 with a key, its certificate and a chain of a few certificates is under 10 KiB. The whole
 * options part of a request is capped at 64 KiB (src/http/job-request/limits.ts), so 48 Ki characters of base64
 * (36 KiB of bundle) leave room for the other options.
 */
const MAX_BUNDLE_BASE64 = 49_152;

/**
 * The opening bytes of a real PKCS#12 export, cut short so the example is no usable bundle; the
 * example runner (test/support/tool-samples.ts) substitutes a bundle it makes for each option of
 * media type application/x-pkcs12, encrypted with the examples' password.
 */
const EXAMPLE_BUNDLE = 'MIIJ4QIBAzCCCZcGCSqGSIb3DQEHAaCCCYgEggmEMIIJgDCCBDcGCSqGSIb3DQEHBqCCBCgwggQkAgEA';

const text = (description: string, maxLength = 256) =>
  Type.Optional(Type.String({ minLength: 1, maxLength, pattern: '^[^\\r\\n]*$', description }));

const options = Type.Object(
  {
    certificate: Type.String({
      minLength: 4,
      maxLength: MAX_BUNDLE_BASE64,
      pattern: '^[A-Za-z0-9+/]+={0,2}$',
      contentEncoding: 'base64',
      contentMediaType: 'application/x-pkcs12',
      description:
        'The signing key with its certificate (and chain) as a PKCS#12 bundle (.p12/.pfx), base64. A secret: never shown on the job and removed from it when the job ends.',
    }),
    certificate_password: Type.String({
      maxLength: 1024,
      description: 'The password of the PKCS#12 bundle. A secret like `certificate`.',
    }),
    reason: text('Why the document is signed (/Reason), e.g. "Approved".'),
    location: text('Where it was signed (/Location).'),
    contact: text('How to reach the signer (/ContactInfo).'),
    certify: Type.Optional(
      StringEnum(['none', 'no_changes', 'form_filling', 'annotations'], {
        default: 'none',
        description:
          'Make this a certification signature (DocMDP) that allows only the named later changes: none at all, filling forms, or filling forms and annotating. Only for a document without signatures.',
      }),
    ),
    appearance: Type.Optional(
      Type.Object(
        {
          page: Type.Integer({ minimum: 1, description: 'Page (1-based) the signature box is drawn on.' }),
          box: Type.Array(Type.Number({ minimum: 0, maximum: 14_400 }), {
            minItems: 4,
            maxItems: 4,
            description: 'The box [x1, y1, x2, y2] in points from the bottom-left corner of the page.',
          }),
          text: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 500,
              description:
                'Text shown in the box (lines split on \\n). Default: the signer’s name and the time.',
            }),
          ),
        },
        {
          additionalProperties: false,
          description: 'A visible signature; without it the signature is invisible.',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { certificate: EXAMPLE_BUNDLE, certificate_password: 'example-password' },
      {
        certificate: EXAMPLE_BUNDLE,
        certificate_password: 'example-password',
        reason: 'Approved',
        location: 'Berlin',
        certify: 'form_filling',
        appearance: { page: 1, box: [72, 72, 300, 130], text: 'Approved by Jane Doe' },
      },
    ],
  },
);

export const signTool = defineTool({
  name: 'sign',
  title: 'Sign a PDF (PAdES)',
  group: 'Signatures',
  keywords: ['digital signature', 'certificate', 'pades', 'e-sign'],
  description:
    'Adds a PAdES digital signature made with your PKCS#12 certificate: invisible or in a box on a page, optionally certifying the document. With a time-stamp authority configured on the server the signature carries a trusted time (B-T).',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  options,
  // Encrypting the signed file again would rewrite it and break the signature just made.
  encryption: 'drops',
  secretOptions: ['certificate', 'certificate_password'],
  output: { contentType: 'application/pdf' },
  // qpdf opens the input (`opens: 'pdf'`): typed errors for encrypted and damaged files, the page count.
  engines: ['pyhanko', 'qpdf'],
  steps: { inspect: 10, sign: 90 },
  checkRequest(o): FieldError[] {
    const box = o.appearance?.box;
    if (!box) return [];
    const [x1, y1, x2, y2] = box as [number, number, number, number];
    if (x1 < x2 && y1 < y2) return [];
    return [
      { pointer: '/options/appearance/box', detail: 'must be [x1, y1, x2, y2] with x1 < x2 and y1 < y2' },
    ];
  },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    const o = ctx.options;
    if (o.appearance && o.appearance.page > pageCount)
      throw new QuireError(
        'page_range_invalid',
        `The appearance page ${o.appearance.page} is not in the document (${pageCount} pages)`,
      );

    ctx.progress.step('sign');
    const output = workFile(ctx.workDir, 'signed');
    const certify = o.certify && o.certify !== 'none' ? o.certify : undefined;
    const appearance = o.appearance;
    const signed = await ctx.engines.pyhanko.sign(
      input.path,
      output,
      {
        pkcs12: o.certificate,
        password: o.certificate_password,
        ...(o.reason ? { reason: o.reason } : {}),
        ...(o.location ? { location: o.location } : {}),
        ...(o.contact ? { contact: o.contact } : {}),
        ...(certify ? { certify } : {}),
        ...(appearance
          ? {
              appearance: {
                page: appearance.page,
                box: appearance.box,
                ...(appearance.text ? { text: appearance.text } : {}),
              },
            }
          : {}),
      },
      engineCall(ctx),
    );
    return {
      path: output,
      name: outputName(input.name, 'signed'),
      contentType: 'application/pdf',
      facts: {
        pages: pageCount,
        signature_field: signed.field,
        signer: signed.signer.common_name,
        level: signed.level,
        certification: certify ?? null,
      },
    };
  },
});
