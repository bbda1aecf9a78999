// A claimer in a process of its own, as a separate `quire worker` would be (queue-scaling spawns it
// as `node dist/bench/support/claimer-process.js <database url> <worker id> <pool max>`). It opens
// the database, prints `ready`, waits for `go` on stdin so that every claimer starts together, runs
// the claim loop until the queue is empty, and prints its stats and the CPU time the loop took
// (cpuMs) as one JSON line.
import { createInterface } from 'node:readline';
import { claimLoop, defaultClaimLimits, loadOpenDatabase } from './queue-store.js';

const [url, workerId, poolMax] = process.argv.slice(2);
if (!url || !workerId) throw new Error('usage: claimer-process.js <database url> <worker id> [pool max]');

const db = await (await loadOpenDatabase())(url, { poolMax: Number(poolMax ?? 2) });
const limits = await defaultClaimLimits();
await db.ping();
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === 'go') break;
lines.close();
try {
  const cpu = process.cpuUsage();
  const stats = await claimLoop(db, workerId, limits);
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  process.stdout.write(`${JSON.stringify({ ...stats, cpuMs })}\n`);
} finally {
  await db.close();
}
