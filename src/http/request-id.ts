// Request ids: `req_` and a ULID (time, then 80 random bits). The ulid package's default source asks
// the OS for randomness once per character, sixteen calls per id, which profiled as the largest
// single cost of a cached GET; here the random bytes come from a pool refilled 4 KiB at a time.
import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

const pool = new Uint8Array(4096);
let next = pool.length;

/** A uniform value in [0, 1) in steps of 1/256: each ULID character takes 32 of them, exactly. */
function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

export function newRequestId(): string {
  return `req_${ulid(Date.now(), pooledRandom)}`;
}
