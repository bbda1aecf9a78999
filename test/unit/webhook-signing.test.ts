// Webhook signing, secrets at rest, the SSRF address rules and the retry schedule: pure functions,
// checked against the Standard Webhooks reference library and its published test vector.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import { isPublicAddress } from '../../src/outbound/address-guard.js';
import { JITTER, nextAfterFailure, parseRetryAfter } from '../../src/webhooks/schedule.js';
import { decryptSecret, encryptSecret, newWebhookSecret } from '../../src/webhooks/secrets.js';
import { sign, webhookHeaders } from '../../src/webhooks/signature.js';

describe('signature', () => {
  test('reproduces the Standard Webhooks test vector', () => {
    const signature = sign(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      Buffer.from('{"test": 2432232314}'),
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  test('a fresh secret signs what the reference library verifies', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const body = Buffer.from('{"type":"job.created","data":{"id":"job_1","name":"résumé"}}');
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([secret], 'msg_1', now, body);
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  test('during a rotation both signatures are sent, newest first, each verifying alone', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = Buffer.from('{}');
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([current, previous], 'msg_2', now, body);
    const [first, second] = headers['webhook-signature']!.split(' ');
    expect(first).toBe(sign(current, 'msg_2', now, body));
    expect(second).toBe(sign(previous, 'msg_2', now, body));
    expect(() =>
      new Webhook(previous).verify(body, { ...headers, 'webhook-signature': second! }),
    ).not.toThrow();
  });
});

describe('secrets at rest', () => {
  const key = randomBytes(32);

  test('round-trips and never stores the plaintext', () => {
    const secret = newWebhookSecret();
    const stored = encryptSecret(key, 'whe_1', secret);
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(decryptSecret(key, 'whe_1', stored)).toBe(secret);
  });

  test('refuses another key, another endpoint or a tampered ciphertext', () => {
    const stored = encryptSecret(key, 'whe_1', newWebhookSecret());
    expect(() => decryptSecret(randomBytes(32), 'whe_1', stored)).toThrow();
    expect(() => decryptSecret(key, 'whe_2', stored)).toThrow();
    const raw = Buffer.from(stored.slice(3), 'base64');
    raw.writeUInt8(raw.readUInt8(raw.length - 1) ^ 1, raw.length - 1);
    expect(() => decryptSecret(key, 'whe_1', `v1.${raw.toString('base64')}`)).toThrow();
  });
});

describe('isPublicAddress', () => {
  test.each([
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['100.64.0.1', false],
    ['169.254.169.254', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['198.18.0.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd00:ec2::254', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:127.0.0.1', false],
    ['64:ff9b::a00:1', false],
    ['2002:a00:1::', false],
    ['ff02::1', false],
    ['not an address', false],
    ['8.8.8.8', true],
    ['93.184.215.14', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('retry schedule', () => {
  const schedule = [0, 5_000, 300_000];

  test('the entry after the failed attempt, jittered by at most ±15 %', () => {
    expect(nextAfterFailure(schedule, 1, 1000, null, () => 0.5)).toEqual({ kind: 'retry', at: 6000 });
    expect(nextAfterFailure(schedule, 2, 0, null, () => 0)).toEqual({
      kind: 'retry',
      at: 300_000 * (1 - JITTER),
    });
    expect(nextAfterFailure(schedule, 2, 0, null, () => 1)).toEqual({
      kind: 'retry',
      at: 300_000 * (1 + JITTER),
    });
  });

  test('fails after the last entry', () => {
    expect(nextAfterFailure(schedule, 3, 0, null)).toEqual({ kind: 'failed' });
  });

  test('Retry-After postpones but never hastens, and is capped at a day', () => {
    expect(nextAfterFailure(schedule, 1, 0, 60_000, () => 0.5)).toEqual({ kind: 'retry', at: 60_000 });
    expect(nextAfterFailure(schedule, 2, 0, 1_000, () => 0.5)).toEqual({ kind: 'retry', at: 300_000 });
    expect(nextAfterFailure(schedule, 1, 0, 9e9, () => 0.5)).toEqual({ kind: 'retry', at: 86_400_000 });
  });

  test.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Thu, 01 Jan 1970 00:01:40 GMT', 90_000],
    ['soon', null],
    [undefined, null],
  ])('Retry-After %j → %j ms', (value, expected) => {
    expect(parseRetryAfter(value, 10_000)).toBe(expected);
  });
});
