import { describe, expect, it } from 'vitest';
import { generateApiKey, hashKeySecret, parseApiKey, verifyKeySecret } from '../../src/auth/api-key.js';

const pepper = Buffer.alloc(32, 7);

describe('API keys', () => {
  it('generates keys in the contract format that parse back to their parts', () => {
    const generated = generateApiKey('live');
    expect(generated.key).toMatch(/^qk_live_[0-9A-Za-z]{8}_[0-9A-Za-z]{43}$/);
    expect(parseApiKey(generated.key)).toEqual({
      mode: 'live',
      keyId: generated.keyId,
      secret: generated.secret,
    });
    expect(generateApiKey('test').key.startsWith('qk_test_')).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['qk_live_abc_def', 'short parts'],
    ['qk_prod_ABCDEFGH_0123456789012345678901234567890123', 'unknown mode'],
    ['qk_live_ABCDEFGH_01234567890123456789012345678901-', 'bad character'],
    ['Bearer qk_live_ABCDEFGH_01234567890123456789012345678901', 'prefix'],
  ])('rejects a malformed key (%s: %s)', (key) => {
    expect(parseApiKey(key)).toBeUndefined();
  });

  it('verifies the right secret and refuses a wrong one or an unknown key id', () => {
    const { secret } = generateApiKey();
    const stored = hashKeySecret(pepper, secret);
    expect(verifyKeySecret(pepper, secret, stored)).toBe(true);
    expect(verifyKeySecret(pepper, `${secret}x`, stored)).toBe(false);
    expect(verifyKeySecret(pepper, secret, undefined)).toBe(false);
    expect(verifyKeySecret(Buffer.alloc(32, 8), secret, stored)).toBe(false);
  });

  it('stores a keyed hash, never the secret itself', () => {
    const { secret } = generateApiKey();
    const stored = hashKeySecret(pepper, secret);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(secret);
  });
});
