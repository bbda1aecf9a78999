// validate: checks a PDF against PDF/UA (ISO 14289) or PDF/A (ISO 19005) with veraPDF, the PDF
// Association's reference validator, and reports per profile whether it conforms and, for every
// rule it breaks, the clause, the rule's description, how many objects fail it and on which pages.
import { writeFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { PROFILES, type ProfileName } from '../engines/verapdf/report.js';
import { QuireError } from '../errors/quire-error.js';
import { scanProtection } from './framework/encryption-rule.js';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { StringEnum } from './framework/schema.js';
import { defineTool } from './framework/types.js';

const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];

const options = Type.Object(
  {
    profile: Type.Optional(
      StringEnum(['auto', ...PROFILE_NAMES], {
        default: 'auto',
        description:
          'The profile to validate against. `auto` takes every conformance the file claims in its XMP metadata (PDF/A part and level, PDF/UA), or PDF/A-1b when it claims none, as veraPDF does.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{}, { profile: 'pdfua-1' }] },
);

export const validateTool = defineTool({
  name: 'validate',
  group: 'OCR and conversion',
  keywords: ['verapdf', 'pdf/ua', 'accessibility check', 'pdf/a check', 'conformance'],
  title: 'Validate PDF/UA or PDF/A conformance',
  description:
    'Checks a PDF against PDF/UA-1 (accessibility) or a PDF/A part and level with veraPDF and reports as JSON, per profile, whether it conforms and every failed rule with its clause, description, count and pages.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  // The file is judged as it is: a decrypted copy would be another file (PDF/A forbids encryption).
  encryption: 'reads',
  options,
  output: { contentType: 'application/json' },
  engines: ['verapdf', 'qpdf'],
  steps: { inspect: 10, validate: 90 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);
    ctx.progress.step('validate');
    const profile = ctx.options.profile ?? 'auto';
    const flavour = profile === 'auto' ? 'auto' : PROFILES[profile];
    // The upload as received, not qpdf's repaired copy: the verdict is on the caller's file.
    const file = input.repairedFrom ?? input.path;
    const reports = await ctx.engines.verapdf
      .validate(file, flavour, engineCall(ctx))
      .catch(async (error: unknown) => {
        throw (await undecrypted(error, file)) ?? error;
      });
    const compliant = reports.every((r) => r.compliant);
    const output = workFile(ctx.workDir, 'validation', 'json');
    const body = { validator: `veraPDF ${ctx.engines.verapdf.version}`, compliant, profiles: reports };
    await writeFile(output, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
    return {
      path: output,
      name: outputName(input.name, 'validation', 'json'),
      contentType: 'application/json',
      facts: {
        pages: pageCount,
        compliant,
        profiles: reports.map((r) => r.profile),
        failed_rules: reports.reduce((n, r) => n + r.failed_rules, 0),
      },
    };
  },
});

/**
 * veraPDF's parse failure on an encrypted file qpdf has just opened is its decryption, not the file:
 * it opens most AES-256 (R6) files protected by an owner password only, but on some of them (one in
 * a dozen or so, by their random salts) it decrypts wrongly and then cannot parse what it got. That
 * is the same refusal as its own "encrypted" one, with the way out: the owner password as `password`
 * validates a copy qpdf decrypted.
 */
async function undecrypted(error: unknown, file: string): Promise<QuireError | undefined> {
  if (!(error instanceof QuireError) || error.code !== 'pdf_corrupt') return undefined;
  if (!(await scanProtection(file)).encrypted) return undefined;
  return new QuireError(
    'pdf_encrypted',
    'veraPDF could not decrypt this PDF; give its owner password as `password` to validate a decrypted copy',
  );
}
