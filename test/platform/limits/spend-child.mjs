// A second process for processes.test.ts: spends one API key's bucket through the real (transpiled) limiter and
// SQLite bucket store, concurrently with the test process, and prints how many requests it was allowed.
// argv: <transpiled limits/index.js> <database path> <key id> <org id> <now ms> <attempts>
import { createInterface } from 'node:readline';

const [modulePath, dbPath, keyId, orgId, nowMs, attempts] = process.argv.slice(2);
const { openLimiter } = await import(modulePath);
const limiter = openLimiter(
  dbPath,
  { enabled: true, store: 'sqlite' },
  {
    clock: () => new Date(Number(nowMs)),
    planOf: async () => 'enterprise',
  },
);
const credential = { type: 'api_key', keyId, userId: 'unused', homeOrgId: orgId };
process.stdout.write('ready\n');
// Start together with the parent, so that the two really do interleave.
for await (const _ of createInterface({ input: process.stdin })) break;
let allowed = 0;
for (let i = 0; i < Number(attempts); i++) {
  if ((await limiter.takeCredential(credential, orgId)).allowed) allowed++;
  // Paced, so the parent's requests land in between rather than after.
  await new Promise((resolve) => setTimeout(resolve, 0));
}
await limiter.close();
process.stdout.write(`${allowed}\n`);
