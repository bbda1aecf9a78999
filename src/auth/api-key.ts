// API keys (docs/api.md §1): `qk_live_<8-char key id>_<secret>`; only a keyed hash of the secret is stored.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_ID_LENGTH = 8;
/** 43 base62 characters ≈ 256 bits of entropy. */
const SECRET_LENGTH = 43;
const KEY_PATTERN = /^qk_(live|test)_([0-9A-Za-z]{8})_([0-9A-Za-z]{32,128})$/;

export interface ParsedApiKey {
  mode: 'live' | 'test';
  keyId: string;
  secret: string;
}

function randomBase62(length: number): string {
  let out = '';
  // randomInt is uniform (no modulo bias), unlike bytes % 62.
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

export function generateApiKey(mode: 'live' | 'test' = 'live'): ParsedApiKey & { key: string } {
  const keyId = randomBase62(KEY_ID_LENGTH);
  const secret = randomBase62(SECRET_LENGTH);
  return { key: `qk_${mode}_${keyId}_${secret}`, mode, keyId, secret };
}

export function parseApiKey(key: string): ParsedApiKey | undefined {
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  return { mode: match[1] as 'live' | 'test', keyId: match[2]!, secret: match[3]! };
}

export function hashKeySecret(pepper: Buffer, secret: string): string {
  return createHmac('sha256', pepper).update(secret, 'utf8').digest('hex');
}

/**
 * Constant-time check of a presented secret against a stored hash. With no stored hash (unknown key
 * id) it still computes and compares, so an unknown id costs the same as a wrong secret.
 */
export function verifyKeySecret(pepper: Buffer, secret: string, storedHash: string | undefined): boolean {
  const presented = Buffer.from(hashKeySecret(pepper, secret), 'hex');
  const stored = Buffer.from(storedHash ?? UNKNOWN_KEY_HASH, 'hex');
  const equal = stored.length === presented.length && timingSafeEqual(stored, presented);
  return equal && storedHash !== undefined;
}

/** Compared against when the key id is unknown; no secret hashes to it in practice. */
const UNKNOWN_KEY_HASH = '0'.repeat(64);
