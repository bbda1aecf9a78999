// Tokens for the local store's temporary links (`/api/v1/files/{token}`, docs/api.md §2): the object,
// expiry, download name and content type, signed with HMAC-SHA-256 so that any API process holding
// the shared secret accepts any other's links, and nothing in them can be altered or extended.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface FileTokenPayload {
  key: string;
  /** Epoch ms after which the link is refused. */
  expiresAt: number;
  /** Download name for Content-Disposition. */
  filename: string;
  contentType: string;
}

/**
 * Prefixed to the signed bytes so a MAC made for another purpose with the same secret (or a
 * future token format) can never pass as a file token.
 */
const DOMAIN = 'quire-file-token:v1:';
const SEGMENT = /^[A-Za-z0-9_-]+$/;
/** Refuse absurd input before hashing it; real tokens are a few hundred characters. */
const MAX_TOKEN_LENGTH = 4096;

function mac(segment: string, secret: Buffer | string): Buffer {
  if (secret.length === 0) throw new Error('File-token secret is empty');
  return createHmac('sha256', secret).update(DOMAIN).update(segment).digest();
}

/** `<base64url payload>.<base64url HMAC>`; the payload is a JSON array, so its encoding is canonical. */
export function signFileToken(payload: FileTokenPayload, secret: Buffer | string): string {
  if (!Number.isSafeInteger(payload.expiresAt)) throw new RangeError('expiresAt must be integer epoch ms');
  const body = JSON.stringify([payload.key, payload.expiresAt, payload.filename, payload.contentType]);
  const segment = Buffer.from(body, 'utf8').toString('base64url');
  return `${segment}.${mac(segment, secret).toString('base64url')}`;
}

/** The payload of a genuine, unexpired token; undefined for anything else, with no detail why. */
export function verifyFileToken(
  token: string,
  secret: Buffer | string,
  now = Date.now(),
): FileTokenPayload | undefined {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return undefined;
  const [segment, signature, extra] = token.split('.');
  if (!segment || !signature || extra !== undefined) return undefined;
  if (!SEGMENT.test(segment) || !SEGMENT.test(signature)) return undefined;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(segment, secret);
  // timingSafeEqual needs equal lengths; the length of a MAC is public, so this check leaks nothing.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const payload = parsePayload(Buffer.from(segment, 'base64url').toString('utf8'));
  if (!payload || now >= payload.expiresAt) return undefined;
  return payload;
}

function parsePayload(text: string): FileTokenPayload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 4) return undefined;
  const [key, expiresAt, filename, contentType] = value as unknown[];
  if (typeof key !== 'string' || typeof filename !== 'string' || typeof contentType !== 'string')
    return undefined;
  if (typeof expiresAt !== 'number' || !Number.isSafeInteger(expiresAt)) return undefined;
  return { key, expiresAt, filename, contentType };
}
