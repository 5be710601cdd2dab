import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { cleanUpProcesses, processHome, startPlat } from '../helpers/spawn.js';

let w: CliWorld;
beforeEach(() => {
  w = cliWorld();
});
afterEach(() => w.cleanup());
afterAll(cleanUpProcesses);

const T = '2026-01-01T00:00:00.000Z';
const sizeError = (flag: string, value: string) =>
  `plat: option '${flag} <n>' argument '${value}' is invalid. expected a whole number from 1 to 100.\n`;

describe('page sizes outside the contract’s 1–100 are refused by the CLI, before anything is done', () => {
  it('--per-page and --limit: 0 and 101 or 500 alike, exit 7, nothing sent, nothing created', async () => {
    for (const [flag, value] of [
      ['--per-page', '0'],
      ['--per-page', '101'],
      ['--per-page', '500'],
      ['--limit', '0'],
      ['--limit', '101'],
      ['--limit', '500'],
    ] as const) {
      const r = await w.runCli(['users', 'list', flag, value]);
      expect(r, `${flag} ${value}`).toMatchObject({ code: 7, stdout: '', stderr: sizeError(flag, value) });
    }
    // Refused while the command line was read: the embedded platform was not even created.
    expect(existsSync(join(w.dataDir, 'local.db'))).toBe(false);
  });

  it('on every paginated list, in --json too; 100 is accepted', async () => {
    for (const argv of [
      ['projects', 'list', '--per-page', '500'],
      ['keys', 'list', '--limit', '500'],
      ['events', 'list', '--limit', '500'],
      ['invitations', 'list', '--per-page', '500'],
      ['teams', 'list', '--limit', '500'],
      ['teams', 'members', 'team_1', '--per-page', '500'],
      ['members', 'list', 'proj_1', '--limit', '500'],
    ]) {
      const flag = argv.at(-2) as string;
      expect(await w.runCli(argv), argv.join(' ')).toMatchObject({ code: 7, stderr: sizeError(flag, '500') });
    }
    const json = await w.runCli(['users', 'list', '--per-page', '500', '--json']);
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'validation_error',
        message: "option '--per-page <n>' argument '500' is invalid. expected a whole number from 1 to 100.",
        status: null,
      },
    });
    for (const flag of ['--per-page', '--limit']) {
      expect(await w.runCli(['users', 'list', flag, '100', '-o', 'ids'])).toMatchObject({
        code: 0,
        stdout: 'user_0001\n',
      });
    }
  });
});

/** Five users (the owner and four invited), newest first: user_0005 … user_0001. */
async function fiveUsers(): Promise<void> {
  for (let i = 1; i <= 4; i++) expect((await w.runCli(['users', 'invite', `u${i}@example.com`])).code).toBe(0);
}

const tty = (argv: string[]) => w.runCli([...argv, '--no-color'], { tty: true });

describe('a list that shows one page of several says so on a terminal', () => {
  it('offset paging: how many of how many, and how to see the rest, on stderr under the table', async () => {
    await fiveUsers();
    expect(await tty(['users', 'list', '--per-page', '2'])).toMatchObject({
      code: 0,
      stdout: [
        '┌───────────┬────────────────┬──────┬────────┬─────────┬──────────────────────────┐',
        '│ ID        │ EMAIL          │ NAME │ ROLE   │ STATUS  │ CREATED                  │',
        '├───────────┼────────────────┼──────┼────────┼─────────┼──────────────────────────┤',
        `│ user_0005 │ u4@example.com │      │ member │ pending │ ${T} │`,
        `│ user_0004 │ u3@example.com │      │ member │ pending │ ${T} │`,
        '└───────────┴────────────────┴──────┴────────┴─────────┴──────────────────────────┘',
        '',
      ].join('\n'),
      stderr: 'Showing 2 of 5 users; use --all to list every one, or --page 2 --per-page 2 for the next\n',
    });
    expect((await tty(['users', 'list', '--per-page', '2', '--page', '2'])).stderr).toBe(
      'Showing 2 of 5 users (page 2 of 3); use --all to list every one, or --page 3 --per-page 2 for the next\n',
    );
    // The last page leaves nothing out.
    const last = await tty(['users', 'list', '--per-page', '2', '--page', '3']);
    expect(last.stdout).toContain('│ user_0001 │ admin@localhost │');
    expect(last.stderr).toBe('');
    // A page past the end: only what an empty list says.
    expect(await tty(['users', 'list', '--per-page', '2', '--page', '9'])).toMatchObject({
      stdout: '',
      stderr: 'No results.\n',
    });
  });

  it('the default first page (cursor paging, no total): that there are more, and --all', async () => {
    for (let i = 1; i <= 20; i++) await w.runCli(['users', 'invite', `p${i}@example.com`]);
    const r = await tty(['users', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('│ user_'))).toHaveLength(20);
    expect(r.stderr).toBe('Showing the first 20 users; there are more: --all lists every one\n');
    // The page size asked for, one record alike.
    expect((await tty(['users', 'list', '--limit', '5'])).stderr).toBe(
      'Showing the first 5 users; there are more: --all lists every one\n',
    );
    expect((await tty(['users', 'list', '--limit', '1'])).stderr).toBe(
      'Showing the first user; there are more: --all lists every one\n',
    );
    // With 20 per page and 21 users, offset paging's page 1 says the same with the total; a default page size is
    // not repeated in the hint.
    expect((await tty(['users', 'list', '--page', '1'])).stderr).toBe(
      'Showing 20 of 21 users; use --all to list every one, or --page 2 for the next\n',
    );
  });

  it('every paginated list verb says it', async () => {
    const team = (await w.runCli(['teams', 'create', 'Core', '-o', 'ids'])).stdout.trim();
    await w.runCli(['teams', 'create', 'Ops']);
    await w.runCli(['users', 'invite', 'a@example.com', '--team', team]);
    await w.runCli(['users', 'invite', 'b@example.com', '--team', team]);
    const project = (await w.runCli(['projects', 'create', 'Billing', '-o', 'ids'])).stdout.trim();
    await w.runCli(['projects', 'create', 'Search']);
    expect((await w.runCli(['members', 'add', project, 'user_0001', '--role', 'admin'])).code).toBe(0);
    expect((await w.runCli(['members', 'add', project, 'user_0002', '--role', 'viewer'])).code).toBe(0);
    await w.runCli(['keys', 'create', '--name', 'ci']);
    const cases: [string[], string][] = [
      [['users', 'list'], 'users'],
      [['projects', 'list'], 'projects'],
      [['keys', 'list'], 'keys'],
      [['events', 'list'], 'events'],
      [['invitations', 'list'], 'invitations'],
      [['teams', 'list'], 'teams'],
      [['teams', 'members', team], 'members'],
      [['members', 'list', project], 'members'],
    ];
    for (const [argv, what] of cases) {
      const r = await tty([...argv, '--limit', '1']);
      expect(r.code, argv.join(' ')).toBe(0);
      // One row: one line that starts with a record's id.
      expect(
        r.stdout.split('\n').filter((l) => /^│ [a-z]+_\w+ /.test(l)),
        r.stdout,
      ).toHaveLength(1);
      expect(r.stderr, argv.join(' ')).toBe(
        `Showing the first ${what.replace(/s$/, '')}; there are more: --all lists every one\n`,
      );
    }
  });

  it('adds nothing for a script: a pipe, --json, -o ids or csv, --quiet, or --all', async () => {
    await fiveUsers();
    const pipe = await w.runCli(['users', 'list', '--per-page', '2']);
    expect(pipe).toMatchObject({
      code: 0,
      stdout: `ID\tEMAIL\tNAME\tROLE\tSTATUS\tCREATED\nuser_0005\tu4@example.com\t\tmember\tpending\t${T}\nuser_0004\tu3@example.com\t\tmember\tpending\t${T}\n`,
      stderr: '',
    });
    expect(await tty(['users', 'list', '--limit', '2', '-o', 'ids'])).toMatchObject({
      stdout: 'user_0005\nuser_0004\n',
      stderr: '',
    });
    expect(await tty(['users', 'list', '--limit', '2', '-o', 'csv'])).toMatchObject({
      stdout: `ID,EMAIL,NAME,ROLE,STATUS,CREATED\r\nuser_0005,u4@example.com,,member,pending,${T}\r\nuser_0004,u3@example.com,,member,pending,${T}\r\n`,
      stderr: '',
    });
    const json = await tty(['users', 'list', '--per-page', '2', '--json']);
    expect(JSON.parse(json.stdout).map((u: { id: string }) => u.id)).toEqual(['user_0005', 'user_0004']);
    expect(json.stderr).toBe('');
    const quiet = await tty(['users', 'list', '--per-page', '2', '--quiet']);
    expect(quiet.stdout).toContain('│ user_0004 │');
    expect(quiet.stderr).toBe('');
    // Every page shown: the progress line, wiped, and no note.
    expect((await tty(['users', 'list', '--limit', '2', '--all'])).stderr).toBe(
      '\rFetched 2 users…\rFetched 4 users…\rFetched 5 users…\r\x1b[K',
    );
  });
});

describe('as its own process', () => {
  const plat = (env: Record<string, string>, argv: string[]) => startPlat(env, argv).done;

  it('refuses --per-page 500 and --limit 500 as it refuses 0 (exit 7)', async () => {
    const env = processHome('plat-paging');
    for (const [flag, value] of [
      ['--per-page', '500'],
      ['--per-page', '0'],
      ['--limit', '500'],
    ] as const) {
      expect(await plat(env, ['users', 'list', flag, value])).toMatchObject({
        code: 7,
        stdout: '',
        stderr: sizeError(flag, value),
      });
    }
  });

  it('prints one page of several on a pipe with nothing added', async () => {
    const env = processHome('plat-paging');
    expect((await plat(env, ['users', 'invite', 'ada@example.com'])).code).toBe(0); // creates the platform
    const r = await plat(env, ['users', 'list', '--per-page', '1', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^ID\tEMAIL\tNAME\tROLE\tSTATUS\tCREATED\nuser_\w+\tada@example\.com\t\tmember\tpending\t\S+\n$/,
    );
    expect(r.stderr).toBe('');
  });
});
