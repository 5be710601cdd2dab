import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { type Served, servedPlatform } from '../helpers/served.js';
import { cleanUpProcesses, processHome, startPlat } from '../helpers/spawn.js';

/**
 * The CLI's retry on 429 against the platform's real limiter: `plat serve`'s listener in this process, its SQLite
 * bucket store, on the world's fixed clock. The CLI's wait is injected: it moves that clock by exactly what the CLI
 * chose to wait, so the test shows that waiting Retry-After seconds is enough — and that the CLI does wait that long.
 * (The embedded platform limits no command of its own: see the last test, as spawned processes.)
 */
describe('rate limits seen from the CLI', () => {
  let w: CliWorld;
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    w.cleanup();
  });

  /** A served platform on the free plan, and the environment that points the CLI at it with the owner's key. */
  async function freePlanServer(): Promise<{ env: Record<string, string>; url: string }> {
    w = cliWorld();
    served = await servedPlatform(w, 'plat-cli-limits');
    // The organization named, as a CI job would: no whoami first to find it.
    const env = { ...served.env, PLAT_ORG: served.organizationId };
    const plan = await w.runCli(['orgs', 'update', '--plan', 'free', '--json'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).plan).toBe('free');
    return { env, url: served.url };
  }

  it('exhausts the free burst, then fails with exit 8 when retries are off', async () => {
    const { env } = await freePlanServer();
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) {
      codes.push((await w.runCli(['users', 'list', '-o', 'ids', '--max-retries', '0'], { env })).code);
    }
    // Free: burst 10. The plan change was paid from the old (enterprise) bucket; the new one holds at most ten.
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(0));
    expect(codes.slice(10)).toEqual([8, 8]);
    const last = await w.runCli(['users', 'list', '--max-retries', '0'], { env });
    expect(last.code).toBe(8);
    expect(last.stderr).toMatch(/rate limit/i);
    expect(last.stderr).toContain('still rate limited after 0 retries');
  });

  it('waits what Retry-After says and then succeeds, showing the budget with --verbose', async () => {
    const { env, url } = await freePlanServer();
    for (let i = 0; i < 10; i++) expect((await w.runCli(['users', 'list', '-o', 'ids'], { env })).code).toBe(0);
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      w.clock.advance(ms);
    };
    const r = await w.runCli(['--verbose', 'users', 'list', '-o', 'ids'], { env, deps: { sleep } });
    expect(r.code, r.stderr).toBe(0);
    expect(waits).toHaveLength(1);
    // Free refills one token a second: Retry-After is 1 s; the CLI waits that plus a little jitter, never less.
    expect(waits[0]).toBeGreaterThanOrEqual(1000);
    expect(waits[0]).toBeLessThan(1000 + 1000);
    const list = `${url}/v2/organizations/org_0001/users?limit=20`;
    expect(r.stderr).toBe(
      `→ GET ${list} · 429 · Nms · request req_… · rate limit 0/60 left\n` +
        `→ GET ${list} · 200 · Nms · request req_… · rate limit 0/60 left · attempt 2\n`,
    );
  });

  it('gives up after --max-retries when the limit does not lift', async () => {
    const { env } = await freePlanServer();
    for (let i = 0; i < 10; i++) await w.runCli(['users', 'list', '-o', 'ids'], { env });
    const waits: number[] = [];
    const r = await w.runCli(['users', 'list', '--max-retries', '2'], {
      env,
      deps: { sleep: async (ms) => void waits.push(ms) }, // time stands still: the bucket never refills
    });
    expect(r.code).toBe(8);
    expect(waits).toHaveLength(2);
    expect(r.stderr).toContain('still rate limited after 2 retries');
  });
});

describe('the embedded platform', () => {
  afterAll(cleanUpProcesses);

  it('never holds back its own commands: they are not its clients (plat, as spawned processes)', async () => {
    const home = processHome('plat-cli-no-limits');
    expect((await startPlat(home, ['local', 'init']).done).code).toBe(0);
    expect((await startPlat(home, ['orgs', 'update', '--plan', 'free']).done).code).toBe(0);
    // Far past the free plan's burst of ten, within a few seconds.
    for (let i = 0; i < 15; i++) {
      const r = await startPlat(home, ['--verbose', 'users', 'list', '-o', 'ids', '--max-retries', '0']).done;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('rate limit');
    }
  });
});
