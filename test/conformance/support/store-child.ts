// A separate OS process acting on a shared database, for the multi-process conformance tests.
// Usage: node --import ./ts-register.mjs store-child.ts <migrate|claim|rate> <database url> [worker id]
// Prints "ready" once the database is open, starts when a line arrives on stdin (so that sibling
// processes collide), then prints one JSON line with its outcome.
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { openDatabase } from '../../../src/store/open.js';

const [mode, url, workerId = `child-${process.pid}`] = process.argv.slice(2);
if (!url || (mode !== 'migrate' && mode !== 'claim' && mode !== 'rate')) {
  process.stderr.write('usage: store-child.ts <migrate|claim|rate> <url> [worker id]\n');
  process.exit(2);
}

const db = await openDatabase(url);
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await once(lines, 'line');
lines.close();

if (mode === 'migrate') {
  await db.migrate();
  process.stdout.write(`${JSON.stringify({ migrated: true })}\n`);
} else if (mode === 'rate') {
  // 200 requests against one shared bucket of 60 per minute: the processes together get 60. All at
  // one instant, so that a slow machine cannot let the bucket refill during the test.
  const now = 1_800_000_000_000;
  let allowed = 0;
  for (let i = 0; i < 200; i++) {
    if ((await db.rateLimits.consume('shared', { quota: 60, windowMs: 60_000 }, now)).allowed) allowed++;
  }
  process.stdout.write(`${JSON.stringify({ allowed })}\n`);
} else {
  const claimed: string[] = [];
  for (;;) {
    const claim = await db.jobs.claimNext(workerId, 60_000);
    if (!claim) break;
    claimed.push(claim.job.id);
    // A worker does work between claims. Without a pause one process re-takes SQLite's write lock
    // back to back while the other sleeps in its busy handler, and can take all 2,000 (seen once in
    // a full run): then the test proves nothing about two processes claiming at once.
    if (claimed.length % 4 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  process.stdout.write(`${JSON.stringify({ claimed })}\n`);
}
await db.close();
