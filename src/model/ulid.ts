// The ULIDs in every id (`job_…`, `req_…`), drawn from a pooled random source: the `ulid` package's
// default makes one crypto call per random character, ≈ 250 µs an id here and five ids per job.
import { randomFillSync } from 'node:crypto';
import { ulid as ulidFrom } from 'ulid';

/** One fill serves 256 ids (16 random characters each). */
const pool = Buffer.alloc(4096);
let next = pool.length;

/** Uniform over [0, 1) in steps of 1/256; 256 is a multiple of the 32 characters, so no bias. */
function pooledRandom(): number {
  if (next >= pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 0x100;
}

/** A ULID (time, then 80 random bits from the OS's CSPRNG) as the `ulid` package makes it. */
export function ulid(): string {
  return ulidFrom(undefined, pooledRandom);
}
