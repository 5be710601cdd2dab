import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../../helpers/cli.js';
import { allUsers, fieldsOf, manyUsers, ok, readBack } from '../../helpers/export.js';

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  await ok(w, ['users', 'invite', 'ada@example.com', '--name', 'Ada']); // bootstraps: org_0001, user_0001, user_0002
});
afterEach(() => w.cleanup());

const mode = (path: string) => statSync(path).mode & 0o777;

describe('plat users export --output FILE', () => {
  it('writes the file whole, mode 0600 (personal data), replacing one that was there; stdout stays empty', async () => {
    const csv = (await ok(w, ['users', 'export'])).stdout;
    const file = join(w.dir, 'users.csv');
    writeFileSync(file, 'old\n');
    chmodSync(file, 0o644);
    expect(await w.runCli(['users', 'export', '--output', 'users.csv'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Exported 2 users to users.csv\n',
    });
    expect(readFileSync(file, 'utf8')).toBe(csv);
    expect(mode(file)).toBe(0o600);
    expect(readdirSync(w.dir).filter((f) => f.includes('users'))).toEqual(['users.csv']); // no temporary file left
    // -o is the same option; a path is relative to the working directory; `-` is stdout.
    mkdirSync(join(w.dir, 'out'));
    await ok(w, ['users', 'export', '-o', 'out/users.jsonl', '--format', 'jsonl']);
    expect(readFileSync(join(w.dir, 'out/users.jsonl'), 'utf8').split('\n')).toHaveLength(3);
    expect(readdirSync(join(w.dir, 'out'))).toEqual(['users.jsonl']);
    expect(await w.runCli(['users', 'export', '--output', '-'])).toMatchObject({
      code: 0,
      stdout: csv,
      stderr: 'Exported 2 users to stdout\n',
    });
  });

  it('refuses a directory that does not exist, or a directory for a file, before asking the platform (exit 2)', async () => {
    const r = await w.runCli(['--verbose', 'users', 'export', '--output', 'nowhere/users.csv']);
    expect(r).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `plat: --output nowhere/users.csv: the directory <tmp>/nowhere does not exist; create it first or choose another\n`,
    });
    expect(existsSync(join(w.dir, 'nowhere'))).toBe(false);
    expect(await w.runCli(['users', 'export', '--output', '.'])).toMatchObject({
      code: 2,
      stderr: 'plat: --output .: that is a directory; name a file in it\n',
    });
  });

  it('never leaves half a file: on a failure the name keeps what it had, and no temporary file is left', async () => {
    const file = join(w.dir, 'users.csv');
    writeFileSync(file, 'previous export\n');
    const r = await w.runCli(['users', 'export', '--output', 'users.csv', '--org', 'org_9999']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^plat: .*\n$/);
    expect(readFileSync(file, 'utf8')).toBe('previous export\n');
    expect(readdirSync(w.dir).filter((f) => f.includes('users'))).toEqual(['users.csv']);
  });
});

describe('a larger organization', () => {
  it('fails midway (rate limited on the third page of users) without touching the file it was to replace', async () => {
    await manyUsers(w, 260, 150);
    writeFileSync(join(w.dir, 'users.jsonl'), 'previous export\n');
    // The teams and two pages of users served; the third page refused, as a server out of budget answers (the embedded
    // platform limits no command of its own).
    let pages = 0;
    const transport: typeof w.transport = async (r) => {
      const t = await w.transport(r);
      const fetch = async (request: Request) => {
        if (!request.url.includes('/users?') || ++pages < 3) return t.fetch(request);
        const body = {
          error: {
            code: 'rate_limit_exceeded',
            message: 'rate limit exceeded: 10 requests a minute for this credential',
            status: 429,
            requestId: 'req_00000000000000000000',
          },
        };
        return new Response(JSON.stringify(body), {
          status: 429,
          headers: {
            'Content-Type': 'application/json',
            'Retry-After': '1',
            'X-Request-Id': 'req_00000000000000000000',
          },
        });
      };
      return { ...t, fetch };
    };
    const argv = ['--verbose', 'users', 'export', '--format', 'jsonl', '-o', 'users.jsonl', '--max-retries', '0'];
    const r = await w.runCli(argv, { deps: { transport } });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    const statuses = [...r.stderr.matchAll(/^→ GET \S+ · (\d+) ·/gm)].map((m) => m[1]);
    expect(statuses).toEqual(['200', '200', '200', '429']);
    expect(r.stderr).toMatch(
      /\nplat: rate limit exceeded: .* \(still rate limited after 0 retries\) \[request req_…\]\n$/,
    );
    expect(readFileSync(join(w.dir, 'users.jsonl'), 'utf8')).toBe('previous export\n');
    expect(readdirSync(w.dir).filter((f) => f.includes('users'))).toEqual(['users.jsonl']);
  });

  it('follows the cursor through every page of users, each with their teams, and reads back to the same users', async () => {
    await manyUsers(w, 260, 150);
    const r = await w.runCli(['--verbose', 'users', 'export', '--output', 'users.csv']);
    expect(r.code, r.stderr).toBe(0);
    const calls = [...r.stderr.matchAll(/→ GET http:\/\/embedded\.plat\/v2(\S+) · 200/g)].map((m) => m[1]);
    // Two hundred and sixty-two users in three requests, whatever their teams (150 of them in one).
    const next = /^\/organizations\/org_0001\/users\?expand=teams&cursor=[\w.-]+&limit=100$/;
    expect(calls).toEqual([
      '/organizations/org_0001/teams?limit=100',
      '/organizations/org_0001/users?sort=created_at&order=asc&expand=teams&limit=100',
      expect.stringMatching(next),
      expect.stringMatching(next),
    ]);
    expect(r.stderr.endsWith('Exported 262 users to users.csv\n')).toBe(true);
    const csv = readFileSync(join(w.dir, 'users.csv'), 'utf8');
    expect(csv.split('\r\n')[0]).toBe(
      'id,email,name,role,status,teams,createdAt,lastLoginAt,metadata.even,metadata.n,metadata.only0,' +
        'metadata.only1,metadata.only2,metadata.tag',
    );
    const users = await allUsers(w);
    expect(users).toHaveLength(262);
    const crowd = new Set(users.filter((u) => /^seed0(0\d\d|1[0-4]\d|150)@/.test(u.email)).map((u) => u.id));
    expect(crowd.size).toBe(150);
    const back = readBack(csv);
    expect(back).toEqual(fieldsOf(users, (id) => (crowd.has(id) ? ['Crowd'] : [])));
    expect(back[3]).toEqual({
      id: 'user_s0002',
      email: 'seed0002@example.com',
      name: 'Seed 0002, "the 2th"',
      role: 'member',
      status: 'pending',
      teams: ['Crowd'],
      createdAt: '2026-01-01T00:00:00.000Z',
      metadata: { n: 2, even: true },
    });
    expect(back[4]?.metadata).toEqual({ tag: '-3', only0: '3' });
  });
});
