import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../../helpers/cli.js';
import { allUsers, fieldsOf, ok, readBack, TRICKY_TEAMS, trickyOrg } from '../../helpers/export.js';

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  await trickyOrg(w);
});
afterEach(() => w.cleanup());

const T = '2026-01-01T00:00:00.000Z';
const HEADER =
  'id,email,name,role,status,teams,createdAt,lastLoginAt,' +
  'metadata.code,metadata.note,metadata.phone,metadata.plan,metadata.ratio,metadata.seats,metadata.vip\r\n';
const CSV =
  HEADER +
  `user_0001,admin@localhost,Admin,owner,active,,${T},,,,,,,,\r\n` +
  `user_0002,ada@example.com,"Lovelace, Ada ""the Countess""",admin,pending,Engineering;R\\;D,${T},,'42,,'+1 555,gold,0.5,42,true\r\n` +
  `user_0003,grace@example.com,"'=HYPERLINK(""http://evil.test"",""x"")",member,pending,Design,${T},,,'quoted,,'=1+1,,,false\r\n` +
  `user_0004,lines@example.com,"First line\nsecond line",member,pending,,${T},,,,,,,,\r\n` +
  `user_0005,zoe@example.com,Zoë Ünïcødé 日本語 🎉,member,pending,'@ops;Engineering,${T},,,,,,,,\r\n` +
  `user_0006,nameless@example.com,,member,suspended,,${T},,,,,,,,\r\n`;

const teamsOf = (id: string) => TRICKY_TEAMS[id] ?? [];

describe('plat users export', () => {
  it('writes CSV by default: every user oldest first, teams by name, cells a spreadsheet cannot run', async () => {
    expect(await w.runCli(['users', 'export'])).toEqual({
      code: 0,
      stdout: CSV,
      stderr: 'Exported 6 users to stdout\n',
      raw: { stdout: CSV, stderr: 'Exported 6 users to stdout\n' },
    });
  });

  it('whose CSV reads back, with csv-parse and the cells’ inverses, to exactly the users’ fields', async () => {
    const users = await allUsers(w);
    expect(readBack((await ok(w, ['users', 'export'])).stdout)).toEqual(fieldsOf(users, teamsOf));
  });

  it('writes JSON (as users list --all --json, plus teams by name) and JSON lines, values as they are', async () => {
    const users = (await allUsers(w)).map((u) => ({ ...u, teams: teamsOf(u.id) }));
    expect(users.map((u) => u.name)).toContain('=HYPERLINK("http://evil.test","x")');
    const json = await w.runCli(['users', 'export', '--format', 'json']);
    expect(json).toMatchObject({
      code: 0,
      stdout: `${JSON.stringify(users, null, 2)}\n`,
      stderr: 'Exported 6 users to stdout\n',
    });
    const lines = await w.runCli(['users', 'export', '--format', 'jsonl']);
    expect(lines).toMatchObject({ code: 0, stdout: users.map((u) => `${JSON.stringify(u)}\n`).join('') });
    expect(JSON.parse(lines.stdout.split('\n')[1] as string).metadata).toEqual({
      plan: 'gold',
      seats: 42,
      code: '42',
      phone: '+1 555',
      vip: true,
      ratio: 0.5,
    });
  });

  it('--status keeps one state; an unknown one is refused like the API would (exit 7)', async () => {
    expect(await w.runCli(['users', 'export', '--status', 'suspended'])).toMatchObject({
      code: 0,
      stdout: `id,email,name,role,status,teams,createdAt,lastLoginAt\r\nuser_0006,nameless@example.com,,member,suspended,,${T},\r\n`,
      stderr: 'Exported 1 user to stdout\n',
    });
    const active = await w.runCli(['users', 'export', '--status', 'active', '--format', 'jsonl']);
    expect(
      active.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['user_0001']);
    expect(await w.runCli(['users', 'export', '--status', 'gone'])).toMatchObject({
      code: 7,
      stdout: '',
      stderr: 'plat: invalid --status "gone": expected one of active, suspended, pending\n',
    });
  });

  it('--json alone means JSON; --format wins over it; -o is the file, never an output mode', async () => {
    const json = await w.runCli(['users', 'export', '--json']);
    expect(JSON.parse(json.stdout)).toHaveLength(6);
    expect((await w.runCli(['users', 'export', '--json', '--format', 'csv'])).stdout).toBe(CSV);
    const refused = await w.runCli(['users', 'export', '-o', 'json']);
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'plat: users export: --output (-o) names the file to write, not an output mode; choose the format with ' +
        '--format json (or write --output ./json for a file of that name)\n',
    });
    expect(await w.runCli(['users', 'export', '--format', 'yaml'])).toMatchObject({
      code: 2,
      stderr: 'plat: invalid format "yaml": expected one of csv, json, jsonl\n',
    });
    // Elsewhere -o is still the output mode, and still checked before anything is done.
    expect(await w.runCli(['users', 'list', '--status', 'suspended', '-o', 'ids'])).toMatchObject({
      code: 0,
      stdout: 'user_0006\n',
    });
    expect(await w.runCli(['users', 'suspend', 'user_0002', '--yes', '-o', 'yaml'])).toMatchObject({
      code: 2,
      stderr:
        "plat: option '-o, --output <mode>' argument 'yaml' is invalid. Allowed choices are table, json, csv, ids.\n",
    });
    expect(JSON.parse((await ok(w, ['users', 'get', 'user_0002', '--json'])).stdout).status).toBe('pending');
  });

  it('--bom begins the CSV with a byte order mark, for CSV only', async () => {
    expect((await w.runCli(['users', 'export', '--bom'])).stdout).toBe(`\ufeff${CSV}`);
    expect(await w.runCli(['users', 'export', '--bom', '--format', 'jsonl'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'plat: --bom is for CSV only, not jsonl\n',
    });
  });

  it('warns that CSV cannot carry empty text in metadata (JSON lines can)', async () => {
    await ok(w, ['api', 'PATCH', '/users/user_0004', '--data', '{"metadata":{"plan":""}}']);
    const r = await w.runCli(['users', 'export', '--status', 'pending']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `user_0004,lines@example.com,"First line\nsecond line",member,pending,,${T},,,,,,,,\r\n`,
    );
    expect(r.stderr).toBe(
      'plat: warning: 1 metadata value is empty text, which a CSV cell cannot tell from no value: the CSV leaves ' +
        'them out (--format jsonl keeps them)\nExported 4 users to stdout\n',
    );
    const lines = (await ok(w, ['users', 'export', '--format', 'jsonl'])).stdout.split('\n');
    expect(JSON.parse(lines[3] as string).metadata).toEqual({ plan: '' });
  });

  it('shows progress on a terminal only, and nothing but data with --quiet', async () => {
    const tty = await w.runCli(['users', 'export', '--format', 'jsonl', '--output', 'u.jsonl'], { tty: true });
    expect(tty.code).toBe(0);
    // Each line drawn over the last (carriage return, erase line), erased at the end, then the summary.
    expect(tty.stderr.replaceAll('\r\x1b[K', '|')).toMatch(
      /^\|Exported 6 users \(\d+\/s\)…\|Exported 6 users to u\.jsonl\n$/,
    );
    expect(await w.runCli(['users', 'export', '--quiet'], { tty: true })).toMatchObject({ code: 0, stderr: '' });
    expect(await w.runCli(['users', 'export', '-q'])).toMatchObject({ code: 0, stdout: CSV, stderr: '' });
  });
});
