// A second process for processes.test.ts: spends one API key's bucket through the real (transpiled) limiter and
// SQLite bucket store, concurrently with the test process, and prints how many requests it was allowed.
// argv: <transpiled limits/index.js> <database path> <bucket key> <now ms> <attempts>
import { createInterface } from 'node:readline';

const [modulePath, dbPath, key, nowMs, attempts] = process.argv.slice(2);
const { openLimiter } = await import(modulePath);
const limiter = openLimiter(dbPath, { enabled: true, store: 'sqlite' }, { clock: () => new Date(Number(nowMs)) });
// The enterprise plan's rule, as the platform spends it.
const rule = { perMinute: 6_000, burst: 1_000 };
process.stdout.write('ready\n');
// Start together with the parent, so that the two really do interleave.
for await (const _ of createInterface({ input: process.stdin })) break;
let allowed = 0;
for (let i = 0; i < Number(attempts); i++) {
  if ((await limiter.spend(key, rule)).allowed) allowed++;
  // Paced, so the parent's requests land in between rather than after.
  await new Promise((resolve) => setTimeout(resolve, 0));
}
// Closing gives back the tokens of its lease that it did not spend.
await limiter.close();
process.stdout.write(`${allowed}\n`);
