// RFC 7240 `Prefer: wait=N` as POST /jobs reads it: other preferences tolerated, the first wait
// counts, quoted values and parameters handled, the server's cap applied.
import { describe, expect, it } from 'vitest';
import { preferredWait } from '../../src/http/prefer.js';

describe('preferredWait', () => {
  it.each([
    ['wait=10', 10],
    ['WAIT = 10', 10],
    ['respond-async, wait=5', 5],
    ['respond-async; foo="a,b", wait=7', 7],
    ['wait="12"', 12],
    ['wait=3;foo=bar', 3],
    ['wait=4, wait=9', 4],
    ['handling=lenient, return=minimal', undefined],
    ['wait', undefined],
    ['wait=', undefined],
    ['wait=-1', undefined],
    ['wait=1.5', undefined],
    ['wait=soon', undefined],
    ['waiting=3', undefined],
    ['x="wait=3"', undefined],
    ['', undefined],
  ])('%j → %s', (header, expected) => {
    expect(preferredWait(header, 60)).toBe(expected);
  });

  it('caps at the server maximum, reads repeated headers in order, and is off at 0', () => {
    expect(preferredWait('wait=600', 60)).toBe(60);
    expect(preferredWait(['respond-async', 'wait=8'], 60)).toBe(8);
    expect(preferredWait('wait=8', 0)).toBeUndefined();
    expect(preferredWait(undefined, 60)).toBeUndefined();
  });
});
