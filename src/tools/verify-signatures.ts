// verify-signatures: a JSON report on every signature of a PDF (signer, time, integrity, coverage,
// later modifications, certification, chain status against the trust roots given in the request).
import { writeFile } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { engineCall } from './framework/engine-call.js';
import { onlyPdf } from './framework/inputs.js';
import { outputName, workFile } from './framework/output-name.js';
import { defineTool } from './framework/types.js';

/** A public certificate (no key), so the example runs: any CA certificate of one's own goes here. */
const EXAMPLE_ROOT = `-----BEGIN CERTIFICATE-----
MIIBjzCCATWgAwIBAgIUFMGn/bUQG0YPjxs209vDlHOsKT0wCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSRXhhbXBsZSBUcnVzdCBSb290MB4XDTI2MTEyNDIwNDE0OVoX
DTM2MTEyMTIwNDE0OVowHTEbMBkGA1UEAwwSRXhhbXBsZSBUcnVzdCBSb290MFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEU4CxRtysvropi9HSvJXK94tRY/BRikch
x+vuXgvy49CPRirp/1IREVZiL992+CET4XKlYWZczZqGOGg8XYWPTqNTMFEwHQYD
VR0OBBYEFInJMjtghHpzs6YCQv5JPGWgqAuOMB8GA1UdIwQYMBaAFInJMjtghHpz
s6YCQv5JPGWgqAuOMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIh
ALLnSQLq3u5vjdaWyVmWw0dXapQDbd9tLpzOfpFOTiP/AiBTxZHqAgthSfNuJr+C
qn7ASD8t1d8wzUwnqx74st/1Ig==
-----END CERTIFICATE-----
`;

const options = Type.Object(
  {
    trust_roots: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: 16_384,
          pattern: '-----BEGIN CERTIFICATE-----',
          description: 'A PEM certificate (or several concatenated).',
        }),
        {
          maxItems: 50,
          description:
            'The certificates to trust as roots. Without any, no chain can be judged and each signature reports `chain: "unknown"`; the server’s own trust list is never used, and nothing is fetched (no CRL, OCSP or AIA).',
        },
      ),
    ),
  },
  { additionalProperties: false, examples: [{}, { trust_roots: [EXAMPLE_ROOT] }] },
);

export const verifySignaturesTool = defineTool({
  name: 'verify-signatures',
  title: 'Verify signatures',
  group: 'Signatures',
  keywords: ['validate', 'check signature', 'certificate'],
  description:
    'Reports every digital signature of a PDF as JSON: signer and issuer, signing time, whether the signed bytes are intact, whether it covers the whole document, what was changed after signing, certification level and chain status against the trust roots you give.',
  inputs: { minFiles: 1, maxFiles: 1, accepts: ['application/pdf'], opens: 'pdf' },
  // A decrypted copy no longer holds the bytes the signatures cover.
  encryption: 'reads',
  options,
  output: { contentType: 'application/json' },
  // qpdf opens the input (`opens: 'pdf'`): typed errors for encrypted and damaged files, the page count.
  engines: ['pyhanko', 'qpdf'],
  steps: { inspect: 10, verify: 90 },
  async run(ctx) {
    const { input, pageCount } = await onlyPdf(ctx);

    ctx.progress.step('verify');
    const signatures = await ctx.engines.pyhanko.verify(
      input.path,
      ctx.options.trust_roots ?? [],
      engineCall(ctx),
    );
    const intact = signatures.filter((s) => s.integrity.digest_valid && s.integrity.signature_valid);
    const output = workFile(ctx.workDir, 'signatures', 'json');
    await writeFile(output, `${JSON.stringify({ signatures }, null, 2)}\n`, { mode: 0o600 });
    return {
      path: output,
      name: outputName(input.name, 'signatures', 'json'),
      contentType: 'application/json',
      facts: { pages: pageCount, signatures: signatures.length, intact: intact.length },
    };
  },
});
