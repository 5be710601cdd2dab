import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../../helpers/cli.js';
import { ok, type ReadBack, readBack, trickyOrg } from '../../helpers/export.js';

/**
 * The export's CSV read back with csv-parse and the cells' inverses and sent to the batch endpoint (what the import
 * does, checked on its own); then the same through `plat users import` itself.
 */
const worlds: CliWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.cleanup();
});
const world = () => {
  const w = cliWorld();
  worlds.push(w);
  return w;
};

/** What an import carries from a row: the rest (id, status, timestamps) belongs to the platform it came from. */
const carried = (rows: ReadBack[]) =>
  rows
    .map(({ email, name, role, teams, metadata }) => ({ email, name, role, teams, metadata }))
    .sort((a, b) => a.email.localeCompare(b.email));

/** Sends rows as the import would (`email`, and what is given of `name`, `role`, `teams`, `metadata`), in upsert mode. */
async function upsert(w: CliWorld, rows: ReadBack[]) {
  const users = rows.map(({ email, name, role, teams, metadata }) => ({
    email,
    ...(name !== undefined && { name }),
    role,
    ...(teams.length > 0 && { teams }),
    ...(Object.keys(metadata).length > 0 && { metadata }),
  }));
  const body = join(w.dir, 'batch.json');
  writeFileSync(body, JSON.stringify({ users, mode: 'upsert' }));
  return JSON.parse((await ok(w, ['api', 'POST', '/organizations/org_0001/users/batch', '--data', `@${body}`])).stdout);
}

describe('an export’s CSV imports back', () => {
  it('into the same platform, changing nothing: a team written by its id included', async () => {
    const w = world();
    await trickyOrg(w);
    const before = (await ok(w, ['users', 'export'])).stdout;
    expect(before).toContain(',Engineering;R\\;D,');
    expect((await upsert(w, readBack(before))).summary).toEqual({ created: 0, updated: 0, unchanged: 6, failed: 0 });
    expect((await ok(w, ['users', 'export'])).stdout).toBe(before);
  });

  it('into another platform, to the same users: e-mail, name, role, teams and metadata', async () => {
    const from = world();
    await trickyOrg(from);
    // Teams travel by name, R;D (its separator escaped) included.
    const exported = readBack((await ok(from, ['users', 'export'])).stdout);

    const to = world();
    await ok(to, ['users', 'list', '-o', 'ids']); // a fresh platform, its owner admin@localhost
    for (const name of ['@ops', 'Engineering', 'Design', 'R;D']) await ok(to, ['teams', 'create', name]);
    expect((await upsert(to, exported)).summary).toEqual({ created: 5, updated: 0, unchanged: 1, failed: 0 });

    const again = readBack((await ok(to, ['users', 'export'])).stdout);
    expect(carried(again)).toEqual(carried(exported));
    expect(carried(again).find((u) => u.email === 'grace@example.com')).toEqual({
      email: 'grace@example.com',
      name: '=HYPERLINK("http://evil.test","x")',
      role: 'member',
      teams: ['Design'],
      metadata: { plan: '=1+1', vip: false, note: "'quoted" },
    });
  });
});

describe('plat users export, then plat users import', () => {
  it('into the same platform changes nothing (a team whose name holds the separator included)', async () => {
    const w = world();
    await trickyOrg(w);
    await ok(w, ['users', 'export', '--output', 'users.csv']);
    const before = readFileSync(join(w.dir, 'users.csv'), 'utf8');
    expect(await w.runCli(['users', 'import', 'users.csv', '--upsert'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Imported users.csv: 6 rows — 0 created, 0 updated, 6 unchanged, 0 failed.\n',
    });
    expect((await ok(w, ['users', 'export'])).stdout).toBe(before);
  });

  it('into another platform gives the same users: e-mail, name, role, teams and metadata', async () => {
    const from = world();
    await trickyOrg(from);
    // Teams travel by name, R;D (its separator escaped) included.
    const csv = (await ok(from, ['users', 'export'])).stdout;

    const to = world();
    for (const name of ['@ops', 'Engineering', 'Design', 'R;D']) await ok(to, ['teams', 'create', name]);
    writeFileSync(join(to.dir, 'users.csv'), csv);
    expect(await to.runCli(['users', 'import', 'users.csv'])).toMatchObject({
      code: 0,
      stderr: 'Imported users.csv: 6 rows — 5 created, 0 updated, 1 unchanged, 0 failed.\n',
    });
    const again = (await ok(to, ['users', 'export'])).stdout;
    expect(carried(readBack(again))).toEqual(carried(readBack(csv)));
    // Its JSON lines import the same way: nothing left to change.
    await ok(to, ['users', 'export', '--format', 'jsonl', '--output', 'users.jsonl']);
    expect((await to.runCli(['users', 'import', 'users.jsonl'])).stderr).toBe(
      'Imported users.jsonl: 6 rows — 0 created, 0 updated, 6 unchanged, 0 failed.\n',
    );
  });
});
