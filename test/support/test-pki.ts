// A throwaway PKI made at test time with the openssl CLI (no private key is ever committed): a CA, a
// signing certificate it issued, and that key with its chain as a password-protected PKCS#12 bundle.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PYHANKO_PYTHON } from '../../src/engines/pyhanko/pyhanko.js';

const run = promisify(execFile);

export interface TestPki {
  /** The CA certificate (PEM): the trust root that makes the chain `trusted`. */
  caPem: string;
  /** The signing key, its certificate and the CA certificate as PKCS#12, base64. */
  bundleBase64: string;
  password: string;
  signerName: string;
}

const LEAF_EXTENSIONS = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n';

/** Makes a CA and a signer named `signerName`, exported with `password`; nothing stays on disk. */
export async function makeTestPki(password: string, signerName = 'Quire Test Signer'): Promise<TestPki> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quire-pki-'));
  const f = (name: string) => path.join(dir, name);
  try {
    // biome-ignore format: one openssl command per line reads best
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '30',
      '-subj', '/CN=Quire Test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
    // biome-ignore format: one openssl command per line reads best
    await run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('leaf.key'), '-out', f('leaf.csr'), '-subj', `/CN=${signerName}`]);
    await writeFile(f('leaf.ext'), LEAF_EXTENSIONS);
    // biome-ignore format: one openssl command per line reads best
    await run('openssl', ['x509', '-req', '-in', f('leaf.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial',
      '-out', f('leaf.pem'), '-days', '30', '-extfile', f('leaf.ext')]);
    // The password reaches openssl through a file, as any secret should.
    await writeFile(f('pass'), password, { mode: 0o600 });
    // biome-ignore format: one openssl command per line reads best
    await run('openssl', ['pkcs12', '-export', '-inkey', f('leaf.key'), '-in', f('leaf.pem'), '-certfile', f('ca.pem'),
      '-out', f('bundle.p12'), '-passout', `file:${f('pass')}`]);
    return {
      caPem: await readFile(f('ca.pem'), 'utf8'),
      bundleBase64: (await readFile(f('bundle.p12'))).toString('base64'),
      password,
      signerName,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A self-signed time-stamping certificate (EKU timeStamping, critical) and its key, as files in `dir`. */
export async function makeTsaCertificate(
  dir: string,
): Promise<{ certFile: string; keyFile: string; certPem: string }> {
  const certFile = path.join(dir, 'tsa.pem');
  const keyFile = path.join(dir, 'tsa.key');
  // biome-ignore format: one openssl command per line reads best
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '30',
    '-subj', '/CN=Quire Test TSA', '-addext', 'extendedKeyUsage=critical,timeStamping', '-addext', 'keyUsage=critical,digitalSignature']);
  return { certFile, keyFile, certPem: await readFile(certFile, 'utf8') };
}

export interface TestTsa {
  /** `http://127.0.0.1:<port>/tsa` */
  url: string;
  /** The TSA's certificate: a trust root for the timestamps it signs. */
  certPem: string;
  stop(): void;
}

/** A local RFC 3161 TSA (tsa-server.py, pyHanko's DummyTimeStamper) with its own certificate in `dir`. */
export async function startTestTsa(dir: string): Promise<TestTsa> {
  const tsa = await makeTsaCertificate(dir);
  const script = path.join(import.meta.dirname, 'tsa-server.py');
  const server = spawn(PYHANKO_PYTHON, [script, tsa.certFile, tsa.keyFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    server.stdout.once('data', (d) => resolve(String(d).trim()));
    server.once('exit', (code) => reject(new Error(`tsa-server.py exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/tsa`, certPem: tsa.certPem, stop: () => server.kill() };
}

/** The /ByteRange [a b c d] of the last signature in `pdf`: the bytes the signature covers. */
export function lastByteRange(pdf: Buffer): [number, number, number, number] {
  const ranges = [
    ...pdf.toString('latin1').matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g),
  ];
  const last = ranges.at(-1);
  if (!last) throw new Error('no /ByteRange in the PDF');
  return [Number(last[1]), Number(last[2]), Number(last[3]), Number(last[4])];
}

/**
 * A copy of a signed PDF with one byte of a content stream changed: the first byte of stream data
 * inside the signed range, so the file still parses but no longer matches its signature.
 */
export function tamperSignedRange(pdf: Buffer): { tampered: Buffer; offset: number } {
  const [start, length] = lastByteRange(pdf);
  const text = pdf.toString('latin1');
  const stream = /stream\r?\n/g;
  for (let m = stream.exec(text); m; m = stream.exec(text)) {
    const offset = m.index + m[0].length;
    if (
      m.index > 0 &&
      text.slice(m.index - 3, m.index) !== 'end' &&
      offset >= start &&
      offset < start + length
    ) {
      const tampered = Buffer.from(pdf);
      tampered[offset] = tampered[offset]! ^ 0xff;
      return { tampered, offset };
    }
  }
  throw new Error('no stream data inside the signed range');
}

/**
 * A copy of a signed PDF with one hex digit of its /Contents (the CMS blob, outside the signed range)
 * changed: the covered bytes are intact but the signature data is damaged.
 */
export function damageSignatureContents(pdf: Buffer): Buffer {
  const [, length] = lastByteRange(pdf);
  // /Contents <hex…> starts at the end of the first range; 300 digits in is well inside the CMS.
  const offset = length + 300;
  const damaged = Buffer.from(pdf);
  damaged[offset] = damaged[offset] === 0x30 ? 0x31 : 0x30;
  return damaged;
}
