// Engine tier: `sign` makes PAdES signatures that poppler's pdfsig (an independent validator) and
// `verify-signatures` accept, that both call broken after one changed byte, with the typed errors
// for a wrong password, a non-PKCS#12 bundle, an encrypted input and a refused time-stamp authority.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pyhankoOutcome, REFUSED_EXIT } from '../../src/engines/pyhanko/failure.js';
import type { SignatureReport } from '../../src/engines/pyhanko/pyhanko.js';
import { createPyhanko } from '../../src/engines/pyhanko/pyhanko.js';
import { guardedLookup } from '../../src/outbound/address-guard.js';
import { signTool } from '../../src/tools/sign.js';
import { verifySignaturesTool } from '../../src/tools/verify-signatures.js';
import { pageText } from '../support/pdf-checks.js';
import {
  damageSignatureContents,
  makeTestPki,
  startTestTsa,
  type TestPki,
  tamperSignedRange,
} from '../support/test-pki.js';
import { corpus } from '../support/tool-context.js';
import { useToolRuns } from '../support/use-tool-runs.js';

const exec = promisify(execFile);
const PDF = 'pypdf-samples__pdflatex-4-pages.pdf';

let pki: TestPki;
let scratch: string;
beforeAll(async () => {
  pki = await makeTestPki('pässword 1');
  scratch = await mkdtemp(path.join(tmpdir(), 'quire-sign-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

const runs = useToolRuns();

const { run } = runs;

const signing = (extra: Record<string, unknown> = {}) => ({
  certificate: pki.bundleBase64,
  certificate_password: pki.password,
  ...extra,
});

/** Signs the corpus PDF and keeps a copy of the result in the scratch dir. */
async function signed(extra: Record<string, unknown> = {}, name = 'signed.pdf'): Promise<string> {
  const { output } = await run(signTool, [PDF], signing(extra));
  const copy = path.join(scratch, name);
  await writeFile(copy, await readFile(output.path));
  return copy;
}

async function verify(file: string, trustRoots?: string[]): Promise<SignatureReport[]> {
  const { output } = await run(verifySignaturesTool, [file], trustRoots ? { trust_roots: trustRoots } : {});
  return (JSON.parse(await readFile(output.path, 'utf8')) as { signatures: SignatureReport[] }).signatures;
}

/** pdfsig exits non-zero for a broken signature; its report is on stdout either way. */
async function pdfsig(file: string): Promise<string> {
  try {
    return (await exec('pdfsig', [file])).stdout;
  } catch (err) {
    return (err as { stdout: string }).stdout;
  }
}

describe('sign', () => {
  it('makes a signature pdfsig validates over the whole document, and verify reports it intact and trusted', async () => {
    const file = await signed({ reason: 'Approved', location: 'Berlin' });
    const report = await pdfsig(file);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
    expect(report).toContain(`Signer Certificate Common Name: ${pki.signerName}`);

    const [signature, ...others] = await verify(file, [pki.caPem]);
    expect(others).toHaveLength(0);
    expect(signature).toMatchObject({
      kind: 'signature',
      signer: { common_name: pki.signerName },
      issuer: { common_name: 'Quire Test CA' },
      integrity: { digest_valid: true, signature_valid: true },
      covers_whole_document: true,
      modifications: 'none',
      certification: null,
      chain: 'trusted',
      reason: 'Approved',
    });
    expect(Date.now() - Date.parse(signature!.signing_time!)).toBeLessThan(10 * 60_000);
  });

  it('reports the chain unknown without trust roots and untrusted against another root', async () => {
    const file = await signed();
    expect((await verify(file))[0]).toMatchObject({ chain: 'unknown', integrity: { digest_valid: true } });
    const stranger = await makeTestPki('other');
    expect((await verify(file, [stranger.caPem]))[0]).toMatchObject({ chain: 'untrusted' });
  });

  it('after one byte inside /ByteRange changes, pdfsig and verify both report the signature broken', async () => {
    const file = await signed();
    const { tampered } = tamperSignedRange(await readFile(file));
    const broken = path.join(scratch, 'tampered.pdf');
    await writeFile(broken, tampered);

    expect(await pdfsig(broken)).not.toContain('Signature is Valid');
    expect(await pdfsig(broken)).toMatch(/Signature Validation: (Digest Mismatch|Signature is Invalid)/);
    const [signature] = await verify(broken, [pki.caPem]);
    expect(signature!.integrity.digest_valid).toBe(false);
  });

  it('draws a visible appearance with the given text and certifies at the given level', async () => {
    const text = 'Approved by Quire Tester';
    const file = await signed({
      certify: 'form_filling',
      appearance: { page: 2, box: [72, 72, 320, 140], text },
    });
    expect(await pageText(file, 2)).toContain(text);
    expect(await pageText(file, 1)).not.toContain(text);
    expect((await pdfsig(file)).match(/Signature is Valid/g)).toHaveLength(1);
    expect((await verify(file))[0]).toMatchObject({ certification: 'form_filling', docmdp_ok: true });
  });

  it('adds a second signature beside the first, both valid, and refuses to certify a signed document', async () => {
    const first = await signed({}, 'first.pdf');
    const { output } = await run(signTool, [first], signing());
    const report = await verify(output.path, [pki.caPem]);
    expect(report.map((s) => s.field)).toEqual(['Signature1', 'Signature2']);
    expect(report.map((s) => s.integrity.digest_valid && s.integrity.signature_valid)).toEqual([true, true]);
    // The first covers its revision only; the second the whole file.
    expect(report.map((s) => s.covers_whole_document)).toEqual([false, true]);
    expect(report[0]!.modifications).toBe('form_filling');
    await expect(run(signTool, [first], signing({ certify: 'no_changes' }))).rejects.toMatchObject({
      code: 'invalid_options',
    });
  });

  it('fails invalid_password for a wrong bundle password and invalid_certificate for a non-PKCS#12', async () => {
    await expect(run(signTool, [PDF], signing({ certificate_password: 'wrong' }))).rejects.toMatchObject({
      code: 'invalid_password',
    });
    const pem = Buffer.from(pki.caPem).toString('base64');
    await expect(run(signTool, [PDF], signing({ certificate: pem }))).rejects.toMatchObject({
      code: 'invalid_certificate',
    });
  });

  it('fails pdf_encrypted for an input that needs a password, and page_range_invalid past the last page', async () => {
    await expect(run(signTool, ['qpdf__enc-XI-R6-V5-U-view-O-master.pdf'], signing())).rejects.toMatchObject({
      code: 'pdf_encrypted',
    });
    await expect(
      run(signTool, [PDF], signing({ appearance: { page: 5, box: [0, 0, 100, 100] } })),
    ).rejects.toMatchObject({ code: 'page_range_invalid' });
  });
});

describe('verify-signatures', () => {
  it('reports an empty list for an unsigned PDF', async () => {
    expect(await verify(corpus(PDF))).toEqual([]);
  });

  it('reports a signature with damaged CMS data as not valid, with the problem, instead of failing', async () => {
    const damaged = path.join(scratch, 'damaged-cms.pdf');
    await writeFile(damaged, damageSignatureContents(await readFile(await signed())));
    const [signature] = await verify(damaged, [pki.caPem]);
    expect(signature).toMatchObject({ field: 'Signature1', integrity: { signature_valid: false } });
    expect(signature!.problem).toEqual(expect.any(String));
  });
});

describe('driver outcome mapping', () => {
  const result = (exitCode: number | null, stdout: string, signal: NodeJS.Signals | null = null) => ({
    exitCode,
    signal,
    stdout,
    stderrTail: 'Traceback … /tmp/secret-path',
    stdoutTruncated: false,
    durationMs: 1,
  });

  it.each([
    ['invalid_password', 'invalid_password'],
    ['invalid_certificate', 'invalid_certificate'],
    ['certify_signed', 'invalid_options'],
    ['invalid_trust_root', 'invalid_options'],
    ['page_out_of_range', 'page_range_invalid'],
    ['timestamp_failed', 'timestamp_failed'],
    ['pdf_corrupt', 'pdf_corrupt'],
    ['something_new', 'engine_failed'],
  ])('maps the refusal %s to %s', (refusal, code) => {
    expect(() => pyhankoOutcome(result(REFUSED_EXIT, `{"error": "${refusal}"}\n`))).toThrow(
      expect.objectContaining({ code }),
    );
  });

  it('returns the parsed result of a clean exit, and names a crash by its exit, not its output', () => {
    expect(pyhankoOutcome(result(0, 'noise\n{"signatures": []}\n'))).toEqual({ signatures: [] });
    expect(() => pyhankoOutcome(result(1, ''))).toThrow(
      expect.objectContaining({ code: 'engine_failed', detail: 'pyHanko exited with code 1' }),
    );
    expect(() => pyhankoOutcome(result(null, '', 'SIGKILL'))).toThrow(
      expect.objectContaining({ code: 'engine_failed', detail: 'pyHanko was killed by SIGKILL' }),
    );
  });
});

describe('time-stamp authority', () => {
  const pyhankoWith = (url: string, allowPrivate: boolean) =>
    createPyhanko(
      { timeoutMs: 60_000, memoryBytes: 2 * 1024 ** 3 },
      { isolateNetwork: false, timestampAuthority: { url, lookup: guardedLookup(allowPrivate) } },
    );

  it('fails timestamp_failed when an admitted TSA does not answer', async () => {
    await expect(
      pyhankoWith('http://127.0.0.1:9/tsa', true).sign(
        corpus(PDF),
        path.join(scratch, 'never.pdf'),
        { pkcs12: pki.bundleBase64, password: pki.password },
        { workDir: scratch },
      ),
    ).rejects.toMatchObject({ code: 'timestamp_failed' });
  });

  it('signs PAdES B-T through a TSA the guard admits, and verify reports the timestamp valid', async () => {
    const tsa = await startTestTsa(scratch);
    try {
      const output = path.join(scratch, 'b-t.pdf');
      const signedBt = await pyhankoWith(tsa.url, true).sign(
        corpus(PDF),
        output,
        { pkcs12: pki.bundleBase64, password: pki.password },
        { workDir: scratch },
      );
      expect(signedBt.level).toBe('B-T');
      expect(await pdfsig(output)).toContain('Signature is Valid');
      const [signature] = await verify(output, [pki.caPem, tsa.certPem]);
      expect(signature!.timestamp).toMatchObject({ valid: true });
      expect(Math.abs(Date.parse(signature!.timestamp!.time!) - Date.now())).toBeLessThan(10 * 60_000);
    } finally {
      tsa.stop();
    }
  });

  it('refuses a TSA whose address is not public before any request, failing timestamp_failed', async () => {
    const pyhanko = createPyhanko(
      { timeoutMs: 60_000, memoryBytes: 2 * 1024 ** 3 },
      {
        isolateNetwork: false,
        timestampAuthority: { url: 'http://127.0.0.1:9/tsa', lookup: guardedLookup(false) },
      },
    );
    await expect(
      pyhanko.sign(
        corpus(PDF),
        path.join(scratch, 'never.pdf'),
        { pkcs12: pki.bundleBase64, password: pki.password },
        {
          workDir: scratch,
        },
      ),
    ).rejects.toMatchObject({ code: 'timestamp_failed' });
  });
});
