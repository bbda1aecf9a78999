// The pooled ULIDs (src/model/ulid.ts): the format every id and docs/api.md promise, unique across
// many pool refills, time first, and random characters spread over the whole alphabet.
import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { ulid } from '../../src/model/ulid.js';

describe('pooled ulid', () => {
  it('makes valid, unique ULIDs carrying the current time, across many pool refills', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5_000 }, () => ulid());
    const after = Date.now();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(isValid(id)).toBe(true);
      expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(decodeTime(id)).toBeGreaterThanOrEqual(before);
      expect(decodeTime(id)).toBeLessThanOrEqual(after);
    }
  });

  it('spreads the random part over all 32 characters, evenly', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 4_000; i++) {
      for (const ch of ulid().slice(10)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(32);
    // 64,000 characters: 2,000 expected each; a biased draw (e.g. one character never or twice as
    // often) lands far outside ±15 %.
    for (const n of counts.values()) expect(Math.abs(n - 2_000)).toBeLessThan(300);
  });
});
