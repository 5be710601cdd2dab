import { afterEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

/**
 * The CLI's retry on 429 against the platform's real limiter (the embedded platform, its SQLite bucket store, on the
 * world's fixed clock). The CLI's wait is injected: it moves that clock by exactly what the CLI chose to wait, so the
 * test shows that waiting Retry-After seconds is enough — and that the CLI does wait that long.
 */
describe('rate limits seen from the CLI', () => {
  let w: CliWorld;
  afterEach(() => w.cleanup());

  async function freePlanWorld() {
    w = cliWorld();
    expect((await w.runCli(['users', 'list', '-o', 'ids'])).code).toBe(0); // bootstraps the embedded platform
    const plan = await w.runCli(['orgs', 'update', '--plan', 'free', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).plan).toBe('free');
  }

  it('exhausts the free burst, then fails with exit 8 when retries are off', async () => {
    await freePlanWorld();
    const codes: number[] = [];
    for (let i = 0; i < 12; i++)
      codes.push((await w.runCli(['users', 'list', '-o', 'ids', '--max-retries', '0'])).code);
    // Free: burst 10. The plan change was paid from the old (enterprise) bucket; the new one holds at most ten.
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(0));
    expect(codes.slice(10)).toEqual([8, 8]);
    const last = await w.runCli(['users', 'list', '--max-retries', '0']);
    expect(last.code).toBe(8);
    expect(last.stderr).toMatch(/rate limit/i);
    expect(last.stderr).toContain('still rate limited after 0 retries');
  });

  it('waits what Retry-After says and then succeeds, showing the budget with --verbose', async () => {
    await freePlanWorld();
    for (let i = 0; i < 10; i++) expect((await w.runCli(['users', 'list', '-o', 'ids'])).code).toBe(0);
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      w.clock.advance(ms);
    };
    const r = await w.runCli(['--verbose', 'users', 'list', '-o', 'ids'], { deps: { sleep } });
    expect(r.code, r.stderr).toBe(0);
    expect(waits).toHaveLength(1);
    // Free refills one token a second: Retry-After is 1 s; the CLI waits that plus a little jitter, never less.
    expect(waits[0]).toBeGreaterThanOrEqual(1000);
    expect(waits[0]).toBeLessThan(1000 + 1000);
    const url = 'http://embedded.plat/v2/organizations/org_0001/users?limit=20';
    expect(r.stderr).toBe(
      `→ GET ${url} · 429 · Nms · request req_… · rate limit 0/60 left\n` +
        `→ GET ${url} · 200 · Nms · request req_… · rate limit 0/60 left · attempt 2\n`,
    );
  });

  it('gives up after --max-retries when the limit does not lift', async () => {
    await freePlanWorld();
    for (let i = 0; i < 10; i++) await w.runCli(['users', 'list', '-o', 'ids']);
    const waits: number[] = [];
    const r = await w.runCli(['users', 'list', '--max-retries', '2'], {
      deps: { sleep: async (ms) => void waits.push(ms) }, // time stands still: the bucket never refills
    });
    expect(r.code).toBe(8);
    expect(waits).toHaveLength(2);
    expect(r.stderr).toContain('still rate limited after 2 retries');
  });
});
