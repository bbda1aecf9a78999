// Over real HTTP in the embedded default: a job of `sign` makes a signature pdfsig validates, a job of
// `verify-signatures` reports it intact (and broken after one changed byte), and the PKCS#12 bundle
// and its password appear in no log line, no job view and no byte of the SQLite files.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, type JobBody } from '../support/client.js';
import { corpusFile } from '../support/corpus.js';
import { startTestServer } from '../support/server.js';
import { makeTestPki, startTestTsa, type TestPki, tamperSignedRange } from '../support/test-pki.js';
import { useTestServer } from '../support/use-test-server.js';

const exec = promisify(execFile);
const PDF = corpusFile('pypdf-samples__pdflatex-4-pages.pdf');

let pki: TestPki;
const quire = useTestServer();
beforeAll(async () => {
  // A password no other byte of the run can contain by chance.
  pki = await makeTestPki(`pw-${randomBytes(12).toString('hex')}`);
});

/** What must never be stored or shown: the password, and any long run of the bundle's base64. */
function leaks(text: string | Buffer): string[] {
  const haystack = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const bundleRuns = [0, 1_000, 2_000].map((at) => pki.bundleBase64.slice(at, at + 48));
  return [pki.password, ...bundleRuns].filter((secret) => haystack.includes(secret));
}

async function verifyJob(file: string | { name: string; data: Uint8Array }, trustRoots: string[]) {
  const job = await quire.client.run({
    tool: 'verify-signatures',
    options: { trust_roots: trustRoots },
    files: [file],
  });
  expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
  const { body } = await quire.client.download(job.id);
  return (JSON.parse(body.toString('utf8')) as { signatures: Array<Record<string, unknown>> }).signatures;
}

async function pdfsig(file: string): Promise<string> {
  try {
    return (await exec('pdfsig', [file])).stdout;
  } catch (err) {
    return (err as { stdout: string }).stdout;
  }
}

describe('sign and verify-signatures over HTTP', () => {
  const views: JobBody[] = [];
  let signedPdf: Buffer;

  it('signs with a PKCS#12 given as secret options; pdfsig and verify-signatures accept the signature', async () => {
    const options = {
      certificate: pki.bundleBase64,
      certificate_password: pki.password,
      reason: 'Approved',
      appearance: { page: 1, box: [72, 72, 320, 140], text: 'Signed over HTTP' },
    };
    const created = await quire.client.submit({ tool: 'sign', options, files: [PDF] });
    views.push(created);
    expect(created.options).toMatchObject({ certificate: '[redacted]', certificate_password: '[redacted]' });
    const done = await quire.client.waitFor(created.id, 120);
    views.push(done);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(done.result).toMatchObject({
      signer: pki.signerName,
      level: 'B-B',
      content_type: 'application/pdf',
    });

    signedPdf = (await quire.client.download(done.id)).body;
    const file = path.join(quire.server.dataDir, 'downloaded-signed.pdf');
    await writeFile(file, signedPdf);
    expect(await pdfsig(file)).toContain('Signature Validation: Signature is Valid.');

    const [signature] = await verifyJob({ name: 'signed.pdf', data: signedPdf }, [pki.caPem]);
    expect(signature).toMatchObject({
      integrity: { digest_valid: true, signature_valid: true },
      covers_whole_document: true,
      chain: 'trusted',
      signer: { common_name: pki.signerName },
    });
  }, 180_000);

  it('after one byte inside the signed range changes, verify-signatures and pdfsig report it broken', async () => {
    const { tampered } = tamperSignedRange(signedPdf);
    const file = path.join(quire.server.dataDir, 'tampered.pdf');
    await writeFile(file, tampered);
    expect(await pdfsig(file)).not.toContain('Signature is Valid');
    const [signature] = await verifyJob({ name: 'tampered.pdf', data: tampered }, [pki.caPem]);
    expect(signature).toMatchObject({ integrity: { digest_valid: false } });
  }, 180_000);

  it('refuses an appearance box with its corners swapped with 400 invalid_options, echoing no secret', async () => {
    const response = await quire.client.createJob({
      tool: 'sign',
      options: {
        certificate: pki.bundleBase64,
        certificate_password: pki.password,
        appearance: { page: 1, box: [300, 72, 72, 140] },
      },
      files: [PDF],
    });
    expect(response.status).toBe(400);
    const problem = await response.text();
    expect(JSON.parse(problem)).toMatchObject({
      code: 'invalid_options',
      errors: [{ pointer: '/options/appearance/box' }],
    });
    expect(leaks(problem)).toEqual([]);
  });

  it('fails a wrong password with invalid_password without echoing it', async () => {
    const job = await quire.client.run(
      {
        tool: 'sign',
        options: { certificate: pki.bundleBase64, certificate_password: `${pki.password}x` },
        files: [PDF],
      },
      120,
    );
    views.push(job);
    expect(job.error).toMatchObject({ code: 'invalid_password', retryable: false });
  }, 180_000);

  it('leaves the password and the bundle in no job view, log line or byte of the database files', async () => {
    for (const view of views) {
      const again = (await (await quire.client.fetch(`/api/v1/jobs/${view.id}`)).json()) as JobBody;
      expect(leaks(JSON.stringify(view)), `view of ${view.id}`).toEqual([]);
      expect(leaks(JSON.stringify(again)), `view of ${view.id}`).toEqual([]);
    }
    expect(quire.server.logs.length).toBeGreaterThan(0);
    expect(leaks(quire.server.logs.join('\n'))).toEqual([]);

    const dbFiles = (await readdir(quire.server.dataDir)).filter((name) => name.includes('.db'));
    expect(dbFiles.length).toBeGreaterThan(0);
    for (const name of dbFiles) {
      expect(leaks(await readFile(path.join(quire.server.dataDir, name))), name).toEqual([]);
    }
  });
});

describe('QUIRE_SIGN_TSA_URL', () => {
  const signOnce = async (env: Record<string, string>) => {
    const tsaServer = await startTestServer(env);
    try {
      const tsaClient = new Client(tsaServer.url, (await tsaServer.newAccount()).key);
      return await tsaClient.run(
        {
          tool: 'sign',
          options: { certificate: pki.bundleBase64, certificate_password: pki.password },
          files: [PDF],
        },
        120,
      );
    } finally {
      await tsaServer.close();
    }
  };

  it('signs B-T through the configured TSA, and refuses one on a private address unless allowed', async () => {
    const tsa = await startTestTsa(quire.server.dataDir);
    try {
      const refused = await signOnce({ QUIRE_SIGN_TSA_URL: tsa.url });
      expect(refused.error).toMatchObject({ code: 'timestamp_failed', retryable: true });
      const allowed = await signOnce({ QUIRE_SIGN_TSA_URL: tsa.url, QUIRE_SIGN_TSA_ALLOW_PRIVATE: 'true' });
      expect(allowed.status, JSON.stringify(allowed.error)).toBe('succeeded');
      expect(allowed.result).toMatchObject({ level: 'B-T' });
    } finally {
      tsa.stop();
    }
  }, 240_000);
});
