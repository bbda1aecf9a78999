// A separate client process for the stream-cap test: opens `GET <url>` ATTEMPTS times with at most
// IN_FLIGHT at once over keep-alive connections, alternating keys as told, holds every stream that
// opens (200) until the end, and prints one JSON line: statuses and codes per key, and the seconds.
// Apart from the server's process, so the server's answers are what the test's /healthz probe measures.
import http from 'node:http';

const [url, attempts, inFlight, ...keys] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(inFlight) + 64 });
const opened = [];
const tally = {};
let next = 0;

function attempt(key) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${keys[key]}` } });
    req.once('error', reject);
    req.once('response', (res) => {
      if (res.statusCode === 200) {
        opened.push(res);
        return resolve(`${key} 200`);
      }
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.once('end', () => {
        const { code } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        resolve(`${key} ${res.statusCode} ${code} ${res.headers['retry-after']}`);
      });
    });
  });
}

const started = performance.now();
await Promise.all(
  Array.from({ length: Number(inFlight) }, async () => {
    while (next < Number(attempts)) {
      // Mostly the first key, so it meets its own cap before the account meets the account's.
      const outcome = await attempt(next++ % 10 === 9 ? 1 : 0);
      tally[outcome] = (tally[outcome] ?? 0) + 1;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ tally, seconds })}\n`);
for (const res of opened) res.destroy();
agent.destroy();
