// File-link tokens: genuine ones verify (across processes sharing the secret), anything altered,
// expired, signed with another secret or malformed is refused.
import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { type FileTokenPayload, signFileToken, verifyFileToken } from '../../src/blobs/signed-url.js';

const secret = Buffer.from('a-shared-server-secret-of-32-bytes!!');
const now = 1_800_000_000_000;
const payload: FileTokenPayload = {
  key: 'jobs/job_01JDQ3/result',
  expiresAt: now + 15 * 60_000,
  filename: 'Quarterly report «final».pdf',
  contentType: 'application/pdf',
};

/** Flips one character of a base64url string to another valid one. */
function flip(text: string, at: number): string {
  const c = text[at] === 'A' ? 'B' : 'A';
  return text.slice(0, at) + c + text.slice(at + 1);
}

describe('file tokens', () => {
  test('a fresh token verifies to its payload', () => {
    const token = signFileToken(payload, secret);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyFileToken(token, secret, now)).toEqual(payload);
  });

  test('the same secret as a string or a Buffer signs identically (several API processes)', () => {
    const token = signFileToken(payload, secret.toString());
    expect(verifyFileToken(token, secret, now)).toEqual(payload);
  });

  test.each([
    ['one ms before expiry', payload.expiresAt - 1, true],
    ['at expiry', payload.expiresAt, false],
    ['after expiry', payload.expiresAt + 60_000, false],
  ])('%s', (_name, at, valid) => {
    const token = signFileToken(payload, secret);
    expect(verifyFileToken(token, secret, at) !== undefined).toBe(valid);
  });

  test.each<[string, Partial<FileTokenPayload>]>([
    ['another object', { key: 'jobs/job_OTHER/result' }],
    ['a later expiry', { expiresAt: payload.expiresAt + 86_400_000 }],
    ['another file name', { filename: 'evil.html' }],
    ['another content type', { contentType: 'text/html' }],
  ])('a payload swapped for %s fails the signature', (_name, change) => {
    const [, signature] = signFileToken(payload, secret).split('.');
    const [forged] = signFileToken({ ...payload, ...change }, Buffer.from('attacker')).split('.');
    expect(verifyFileToken(`${forged}.${signature}`, secret, now)).toBeUndefined();
  });

  test('any altered character of the payload or signature is refused', () => {
    const token = signFileToken(payload, secret);
    const dot = token.indexOf('.');
    for (const at of [0, Math.floor(dot / 2), dot - 1, dot + 1, token.length - 2]) {
      expect(verifyFileToken(flip(token, at), secret, now), `position ${at}`).toBeUndefined();
    }
  });

  test('a token signed with another secret is refused', () => {
    const token = signFileToken(payload, Buffer.from('another-secret-of-thirty-two-bytes!!'));
    expect(verifyFileToken(token, secret, now)).toBeUndefined();
  });

  test.each([
    ['empty', ''],
    ['no signature', 'abc'],
    ['empty segments', '.'],
    ['three segments', 'a.b.c'],
    ['non-base64url characters', 'ab+c.de/f'],
    ['a short signature', `${signFileToken(payload, secret).split('.')[0]}.AAAA`],
    ['padding', `${signFileToken(payload, secret)}=`],
    ['far too long', `${'A'.repeat(5000)}.${'A'.repeat(43)}`],
  ])('garbage is refused: %s', (_name, token) => {
    expect(verifyFileToken(token, secret, now)).toBeUndefined();
  });

  test('a correctly signed segment that is not a valid payload is refused', () => {
    // Signs raw segments the way the module does, so that only the payload's shape can fail.
    const sign = (body: string) => {
      const segment = Buffer.from(body).toString('base64url');
      const mac = createHmac('sha256', secret)
        .update('quire-file-token:v1:')
        .update(segment)
        .digest('base64url');
      return `${segment}.${mac}`;
    };
    expect(verifyFileToken(sign(JSON.stringify(['k', now + 1, 'f', 't'])), secret, now)).toBeDefined();
    for (const body of [
      '{"key":"x"}',
      '["k","soon","f","t"]',
      'not json',
      '["k",1.5,"f","t"]',
      '["k",9e99,1,"t"]',
    ]) {
      expect(verifyFileToken(sign(body), secret, now), body).toBeUndefined();
    }
  });

  test('an empty secret is a programming error, not a valid key', () => {
    expect(() => signFileToken(payload, '')).toThrow();
  });
});
