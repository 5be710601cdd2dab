import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliDeps } from '../../src/cli/context.js';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { importHelpers } from '../helpers/users-import.js';

// `plat users import` in-process against the embedded platform (docs/cli.md "Importing
// users"). The spawned runs, embedded and against `plat serve`, are in users-import-process.test.ts.

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  // The first command creates the embedded platform (org_0001, owner admin@localhost); then two teams.
  await w.runCli(['teams', 'create', 'Engineering']);
  await w.runCli(['teams', 'create', 'Research']);
});
afterEach(() => w.cleanup());

const write = (name: string, text: string) => writeFileSync(join(w.dir, name), text);
const exists = (name: string) => existsSync(join(w.dir, name));
const { read, errorsOf, users, batches } = importHelpers(() => w);

/** How many `user.invited` events each e-mail has: one per user created, so a row done twice would show 2. */
async function createdCount(): Promise<Record<string, number>> {
  const events = JSON.parse((await w.runCli(['events', 'list', '--type', 'user.invited', '--all', '--json'])).stdout);
  const counts: Record<string, number> = {};
  for (const e of events as { data: { email: string } }[]) counts[e.data.email] = (counts[e.data.email] ?? 0) + 1;
  return counts;
}

/** `n` rows of people, from person1@example.com. */
const people = (n: number, from = 1) =>
  `email,name\n${Array.from({ length: n }, (_, i) => `person${from + i}@example.com,Person ${from + i}\n`).join('')}`;

/** What `fetch` throws when the connection is reset (the client finds the code along the cause chain). */
const reset = () =>
  Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
  });

describe('users import', () => {
  it('creates users with names, roles, teams and metadata, and a second run changes nothing', async () => {
    write(
      'people.csv',
      'email,name,role,teams,metadata.plan,metadata.seats\n' +
        'ada@example.com,"Lovelace, Ada",admin,Engineering;Research,gold,3\n' +
        'bob@example.com,Bob,,,,\n',
    );
    expect(await w.runCli(['users', 'import', 'people.csv'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Imported people.csv: 2 rows — 2 created, 0 updated, 0 unchanged, 0 failed.\n',
    });
    const u = await users();
    expect(u['ada@example.com']).toMatchObject({
      name: 'Lovelace, Ada',
      role: 'admin',
      status: 'pending',
      metadata: { plan: 'gold', seats: 3 },
    });
    expect(u['bob@example.com']).toMatchObject({ name: 'Bob', role: 'member', metadata: {} });
    const members = await w.runCli(['teams', 'members', 'team_0001', '-o', 'ids']);
    expect(members.stdout).toContain(u['ada@example.com'].id);
    expect(exists('people.csv.errors.jsonl')).toBe(false);
    expect(exists('people.csv.errors.jsonl.checkpoint')).toBe(false);

    expect(await w.runCli(['users', 'import', 'people.csv', '--json'])).toMatchObject({ code: 0, stderr: '' });
    const again = await w.runCli(['users', 'import', 'people.csv', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({
      created: 0,
      updated: 0,
      unchanged: 2,
      failed: 0,
      rows: 2,
      earlier: 0,
      dryRun: false,
      complete: true,
      errors: null,
      teamsCreated: [],
    });
  });

  it('writes every failed row with its line and reason, imports the others, and exits 7', async () => {
    await w.runCli(['users', 'invite', 'dee@example.com', '--name', 'Dee']);
    write(
      'people.csv',
      'email,name,role,teams\n' +
        'ada@example.com,Ada,admin,\n' +
        ',No Email,,\n' +
        'bob@example.com,Bob,emperor,\n' +
        '"cy@example.com","Cy\nCyrus",member,Nowhere\n' +
        'dee@example.com,Deirdre,,\n' +
        'eve@example.com,Eve,,Research\n' +
        'ada@example.com,Ada,admin,\n',
    );
    const r = await w.runCli(['users', 'import', 'people.csv', '--batch-size', '3', '--concurrency', '1']);
    expect(r).toMatchObject({
      code: 7,
      stderr:
        'Imported people.csv: 7 rows — 2 created, 0 updated, 1 unchanged, 4 failed; failed rows are in ' +
        'people.csv.errors.jsonl.\n' +
        'plat: 4 rows failed: see people.csv.errors.jsonl (line, e-mail, reason); 1 of them names teams that do not ' +
        'exist: add --create-teams to create them\n',
    });
    expect(errorsOf('people.csv.errors.jsonl')).toEqual([
      { line: 3, email: null, code: 'validation_error', message: 'email: missing' },
      {
        line: 4,
        email: 'bob@example.com',
        code: 'validation_error',
        message: 'role: Invalid option: expected one of "owner"|"admin"|"member"',
      },
      { line: 5, email: 'cy@example.com', code: 'validation_error', message: 'teams: unknown team: Nowhere' },
      {
        line: 7,
        email: 'dee@example.com',
        code: 'conflict',
        message: 'dee@example.com is already a member with another name: upsert to update it',
      },
    ]);
    // The same e-mail again (line 8, in another batch) is unchanged; a multi-line row fails on the line it starts.
    const u = await users();
    expect(Object.keys(u).sort()).toEqual(['ada@example.com', 'admin@localhost', 'dee@example.com', 'eve@example.com']);
  });

  it('--upsert updates what differs; a create of a member that differs is a conflict', async () => {
    await w.runCli(['users', 'invite', 'dee@example.com', '--name', 'Dee', '--team', 'team_0001']);
    write('people.csv', 'email,name,teams,metadata.desk\ndee@example.com,Deirdre,Research,B2\n');
    expect(await w.runCli(['users', 'import', 'people.csv'])).toMatchObject({ code: 7 });
    expect(errorsOf('people.csv.errors.jsonl')).toEqual([
      {
        line: 2,
        email: 'dee@example.com',
        code: 'conflict',
        message: 'dee@example.com is already a member with another name, metadata, teams: upsert to update it',
      },
    ]);
    expect(await w.runCli(['users', 'import', 'people.csv', '--upsert'])).toMatchObject({
      code: 0,
      stderr: 'Imported people.csv: 1 row — 0 created, 1 updated, 0 unchanged, 0 failed.\n',
    });
    expect(exists('people.csv.errors.jsonl')).toBe(false); // a new run removes the last one's
    expect((await users())['dee@example.com']).toMatchObject({ name: 'Deirdre', metadata: { desk: 'B2' } });
    expect((await w.runCli(['users', 'import', 'people.csv', '--upsert'])).stderr).toContain('1 unchanged');
  });

  it('refuses an unknown column before sending anything (exit 7)', async () => {
    write('people.csv', 'email,nmae\nada@example.com,Ada\n');
    const before = await users();
    expect(await w.runCli(['users', 'import', 'people.csv'])).toMatchObject({
      code: 7,
      stdout: '',
      stderr:
        'plat: line 1: unknown column "nmae": expected email, name, role, teams and metadata.KEY columns (the ' +
        "export's id, status, emailVerified, createdAt, updatedAt, lastLoginAt, avatarUrl are ignored); nothing was " +
        'imported\n',
    });
    expect(await users()).toEqual(before);
    expect(exists('people.csv.errors.jsonl') || exists('people.csv.errors.jsonl.checkpoint')).toBe(false);
  });

  it('reads the CSV the export writes: its read-only columns ignored, neutralised cells restored', async () => {
    write(
      'export.csv',
      'id,email,name,role,status,teams,createdAt,lastLoginAt,metadata.formula,metadata.code\r\n' +
        'user_0001,admin@localhost,Admin,owner,active,,2026-01-01T00:00:00.000Z,,,\r\n' +
        "user_0099,ada@example.com,'=Ada,member,pending,Engineering;Research,2026-01-01T00:00:00.000Z,,'@SUM(1),'42\r\n",
    );
    const r = await w.runCli(['users', 'import', 'export.csv']);
    expect(r.stderr).toBe('Imported export.csv: 2 rows — 1 created, 0 updated, 1 unchanged, 0 failed.\n');
    expect((await users())['ada@example.com']).toMatchObject({
      name: '=Ada',
      metadata: { formula: '@SUM(1)', code: '42' }, // text, not the number 42
    });
  });

  it('--dry-run reports the outcomes and changes nothing; it has nothing to --resume', async () => {
    write('people.csv', `${people(3)}bad,Bad\n`);
    const before = await users();
    expect(await w.runCli(['users', 'import', 'people.csv', '--dry-run'])).toMatchObject({
      code: 7,
      stderr:
        'Dry run of people.csv, nothing changed: 4 rows — 3 created, 0 updated, 0 unchanged, 1 failed; failed rows are ' +
        'in people.csv.errors.jsonl.\nplat: 1 row failed: see people.csv.errors.jsonl (line, e-mail, reason)\n',
    });
    expect(errorsOf('people.csv.errors.jsonl')).toEqual([
      { line: 5, email: 'bad', code: 'validation_error', message: 'email: must be an e-mail address' },
    ]);
    expect(await users()).toEqual(before);
    expect(exists('people.csv.errors.jsonl.checkpoint')).toBe(false);
    expect(await w.runCli(['users', 'import', 'people.csv', '--dry-run', '--resume'])).toMatchObject({
      code: 2,
      stderr: 'plat: --dry-run changes nothing, so it has nothing to --resume\n',
    });
  });

  it('reads JSON arrays and JSON lines (by extension or --format), from a file or stdin', async () => {
    write(
      'people.json',
      '[\n  {"email": "ada@example.com", "teams": ["Engineering"], "metadata": {"n": 1}},\n  {"email": "bob@example.com", "nick": "B"}\n]\n',
    );
    expect(await w.runCli(['users', 'import', 'people.json'])).toMatchObject({ code: 7 });
    expect(errorsOf('people.json.errors.jsonl')).toEqual([
      { line: 3, email: 'bob@example.com', code: 'validation_error', message: 'unknown key "nick"' },
    ]);
    const jsonl = '{"email":"cy@example.com","name":"Cy"}\n\n{"email":"dee@example.com",\n';
    const r = await w.runCli(['users', 'import', '-', '--format', 'jsonl', '--errors', 'stdin-errors.jsonl'], {
      stdin: jsonl,
    });
    expect(r).toMatchObject({
      code: 7,
      stderr:
        'Imported stdin: 2 rows — 1 created, 0 updated, 0 unchanged, 1 failed; failed rows are in stdin-errors.jsonl.\n' +
        'plat: 1 row failed: see stdin-errors.jsonl (line, e-mail, reason)\n',
    });
    expect(errorsOf('stdin-errors.jsonl')).toMatchObject([{ line: 3, email: null, code: 'invalid_request' }]);
    expect(Object.keys(await users()).sort()).toEqual(['ada@example.com', 'admin@localhost', 'cy@example.com']);
    const usage: [string[], string][] = [
      [['people.json', '--format', 'xml'], 'invalid format "xml": expected one of csv, json, jsonl'],
      [['missing.csv'], 'cannot read missing.csv: no such file'],
    ];
    for (const [argv, message] of usage) {
      expect(await w.runCli(['users', 'import', ...argv])).toMatchObject({ code: 2, stderr: `plat: ${message}\n` });
    }
  });

  it('reads stdin without --errors: failed rows on stderr, no errors file or checkpoint, exit 7', async () => {
    await w.runCli(['users', 'invite', 'dee@example.com', '--name', 'Dee']);
    const csv =
      'email,name,role\n' +
      'ada@example.com,Ada,\n' +
      ',No Email,\n' +
      '"bob@example.com\u001b[2J\nx",Bob,\n' +
      'dee@example.com,Deirdre,\n' +
      'eve@example.com,Eve,emperor\n';
    const r = await w.runCli(['users', 'import', '-', '--batch-size', '2', '--concurrency', '1'], { stdin: csv });
    expect(r).toMatchObject({
      code: 7,
      stdout: '',
      stderr:
        'line 3: email: missing\n' +
        'line 4 bob@example.com\\x1b[2J\\nx: email: must be an e-mail address\n' +
        'line 6 dee@example.com: dee@example.com is already a member with another name: upsert to update it\n' +
        'line 7 eve@example.com: role: Invalid option: expected one of "owner"|"admin"|"member"\n' +
        'Imported stdin: 5 rows — 1 created, 0 updated, 0 unchanged, 4 failed; failed rows are listed above.\n' +
        'plat: 4 rows failed: they are listed above\n',
    });
    expect(readdirSync(w.dir).filter((f) => f.includes('errors'))).toEqual([]);
    expect(Object.keys(await users()).sort()).toEqual(['ada@example.com', 'admin@localhost', 'dee@example.com']);

    // --json: the summary on stdout (no errors file to name), the failed rows on stderr still; so with --quiet.
    const json = await w.runCli(['users', 'import', '-', '--json', '-q'], { stdin: 'email\nada@example.com\nbad\n' });
    expect(json).toMatchObject({
      code: 7,
      stderr:
        'line 3 bad: email: must be an e-mail address\n' +
        '{"error":{"code":"validation_error","message":"1 row failed: they are listed above","status":null}}\n',
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ unchanged: 1, failed: 1, rows: 2, complete: true, errors: null });

    // Nothing failed: the summary alone, exit 0; `--errors -` sends a file's failures to stderr the same way.
    expect(await w.runCli(['users', 'import', '-'], { stdin: 'email\nfay@example.com\n' })).toMatchObject({
      code: 0,
      stderr: 'Imported stdin: 1 row — 1 created, 0 updated, 0 unchanged, 0 failed.\n',
    });
    write('people.csv', 'email\nbad\n');
    expect(await w.runCli(['users', 'import', 'people.csv', '--errors', '-'])).toMatchObject({
      code: 7,
      stderr:
        'line 2 bad: email: must be an e-mail address\n' +
        'Imported people.csv: 1 row — 0 created, 0 updated, 0 unchanged, 1 failed; failed rows are listed above.\n' +
        'plat: 1 row failed: they are listed above\n',
    });
    expect(readdirSync(w.dir).filter((f) => f.includes('errors'))).toEqual([]);
  });

  it('--resume needs --errors when failed rows go to stderr: there is no checkpoint without it', async () => {
    for (const argv of [['-'], ['people.csv', '--errors', '-']]) {
      expect(await w.runCli(['users', 'import', ...argv, '--resume'], { stdin: people(1) })).toMatchObject({
        code: 2,
        stderr:
          'plat: --resume needs --errors FILE: the checkpoint it resumes from is kept beside the errors file, and ' +
          'failed rows going to stderr leave none\n',
      });
    }
    expect(Object.keys(await users())).toEqual(['admin@localhost']);
  });

  it('stopped on stdin without --errors, it says to run it again rather than --resume', async () => {
    const r = await w.runCli(['users', 'import', '-', '--batch-size', '2'], {
      stdin: `${people(2)}"broken"x,Y\n`,
    });
    expect(r).toMatchObject({
      code: 7,
      stderr:
        'line 4: malformed CSV: a quoted field goes on after its closing quote\n' +
        'Stopped importing stdin: 3 rows — 2 created, 0 updated, 0 unchanged, 1 failed; failed rows are listed ' +
        'above; run it again to go on (what was imported comes out unchanged).\n' +
        'plat: line 4: a quoted field goes on after its closing quote: the rest of the input cannot be read, so ' +
        'lines 4 on were not sent; fix it, then run it again to go on (what was imported comes out unchanged)\n',
    });
  });

  it("reads Excel's Unicode text (UTF-16LE, tab-separated) and UTF-16BE from stdin; refuses a workbook", async () => {
    const text =
      'email\tname\trole\tteams\tmetadata.city\r\n' +
      'zoe@example.com\t"Zoë\t😀"\tadmin\tEngineering;Research\tZürich\r\n' +
      'amelie@example.com\tAmélie, « Mimi »\t\t\t\r\n';
    writeFileSync(join(w.dir, 'people.txt'), Buffer.from(`\uFEFF${text}`, 'utf16le'));
    expect(await w.runCli(['users', 'import', 'people.txt'])).toMatchObject({
      code: 0,
      stderr: 'Imported people.txt: 2 rows — 2 created, 0 updated, 0 unchanged, 0 failed.\n',
    });
    const u = await users();
    expect(u['zoe@example.com']).toMatchObject({ name: 'Zoë\t😀', role: 'admin', metadata: { city: 'Zürich' } });
    expect(u['amelie@example.com']).toMatchObject({ name: 'Amélie, « Mimi »', role: 'member' });
    expect((await w.runCli(['teams', 'members', 'team_0002', '-o', 'ids'])).stdout).toContain(u['zoe@example.com'].id);

    const be = Buffer.from('\uFEFFemail,name\nbob@example.com,Bøb\n', 'utf16le').swap16();
    expect(await w.runCli(['users', 'import', '-'], { stdin: be })).toMatchObject({ code: 0 });
    expect((await users())['bob@example.com']).toMatchObject({ name: 'Bøb' });

    const before = await users();
    writeFileSync(join(w.dir, 'people.xlsx'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]));
    expect(await w.runCli(['users', 'import', 'people.xlsx'])).toMatchObject({
      code: 7,
      stdout: '',
      stderr:
        'plat: people.xlsx is a zip archive (an Excel workbook, .xlsx?): plat reads text, UTF-8 or UTF-16 (in Excel, ' +
        'save as "CSV UTF-8" or "Unicode text")\n',
    });
    expect(await users()).toEqual(before);
    expect(readdirSync(w.dir).filter((f) => f.startsWith('people.xlsx.'))).toEqual([]);
  });

  it('--invite mails the users it creates, and only those', async () => {
    write('people.csv', people(2));
    expect((await w.runCli(['users', 'import', 'people.csv', '--invite'])).code).toBe(0);
    expect((await w.runCli(['users', 'import', 'people.csv', '--invite'])).stderr).toContain('2 unchanged');
    const mail = JSON.parse((await w.runCli(['local', 'mail', '--json'])).stdout) as { to: string }[];
    expect(mail.map((m) => m.to).sort()).toEqual(['person1@example.com', 'person2@example.com']);
  });

  it('keeps each request body within 1 MiB, whatever the batch size', async () => {
    const note = 'x'.repeat(400);
    const metadata = Array.from({ length: 50 }, (_, k) => `metadata.k${k}`).join(',');
    const cells = Array.from({ length: 50 }, () => note).join(',');
    const rows = Array.from({ length: 120 }, (_, i) => `p${i}@example.com,${cells}\n`).join('');
    write('wide.csv', `email,${metadata}\n${rows}`);
    const sizes: number[] = [];
    const deps = batches(async (_n, request, pass) => {
      sizes.push(Buffer.byteLength(await request.clone().text()));
      return pass();
    });
    const r = await w.runCli(['users', 'import', 'wide.csv'], { deps });
    expect(r.stderr).toBe('Imported wide.csv: 120 rows — 120 created, 0 updated, 0 unchanged, 0 failed.\n');
    expect(sizes.length).toBe(3);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(1024 * 1024);
  });

  it('shows progress on a terminal only', async () => {
    write('people.csv', people(5));
    const tty = await w.runCli(['users', 'import', 'people.csv', '--batch-size', '2'], { tty: true });
    expect(tty.code).toBe(0);
    const clear = '\r\x1b[K'; // back to the line's start, and erase it
    expect(tty.raw.stderr.startsWith(`${clear}Importing people.csv  `)).toBe(true);
    expect(tty.raw.stderr).toMatch(/Importing people\.csv {2}█+░* \d+% {2}\d rows/);
    expect(
      tty.raw.stderr.endsWith(`${clear}Imported people.csv: 5 rows — 5 created, 0 updated, 0 unchanged, 0 failed.\n`),
    ).toBe(true);
    const pipe = await w.runCli(['users', 'import', 'people.csv', '--batch-size', '2']);
    expect(pipe.raw.stderr).toBe('Imported people.csv: 5 rows — 0 created, 0 updated, 5 unchanged, 0 failed.\n');
    const quiet = await w.runCli(['users', 'import', 'people.csv', '-q'], { tty: true });
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('users import --create-teams', () => {
  /** The organization's teams, by name. */
  const teamNames = async () =>
    (JSON.parse((await w.runCli(['teams', 'list', '--all', '--json'])).stdout) as { name: string }[])
      .map((t) => t.name)
      .sort();
  const teamEvents = async () =>
    (JSON.parse((await w.runCli(['events', 'list', '--type', 'team.created', '--all', '--json'])).stdout) as unknown[])
      .length;
  // Sales and R\;D do not exist; engineering is Engineering (names compare case-insensitively); Sales is named in
  // every batch (two at a time), and by a row that fails on its own.
  const csv =
    'email,name,teams\n' +
    'ada@example.com,Ada,engineering;Sales\n' +
    'bob@example.com,Bob,Sales;R\\;D\n' +
    'cy@example.com,Cy,sales\n' +
    'bad,Bad,Sales;Support\n' +
    'dee@example.com,Dee,\n';

  it('without it, rows naming a team that does not exist fail, and the error says what would create them', async () => {
    write('people.csv', csv);
    const r = await w.runCli(['users', 'import', 'people.csv']);
    expect(r.code).toBe(7);
    expect(r.stderr.split('\n').slice(-2)).toEqual([
      'plat: 4 rows failed: see people.csv.errors.jsonl (line, e-mail, reason); 3 of them name teams that do not ' +
        'exist: add --create-teams to create them',
      '',
    ]);
    expect(errorsOf('people.csv.errors.jsonl').map((e) => e.message)).toEqual([
      'teams: unknown team: Sales',
      'teams: unknown teams: Sales, R;D',
      'teams: unknown team: sales',
      'email: must be an e-mail address',
    ]);
  });

  it('creates each missing team once, across batches sent at once, and says which', async () => {
    write('people.csv', csv);
    const before = await teamEvents();
    const r = await w.runCli(['users', 'import', 'people.csv', '--create-teams', '--batch-size', '2']);
    expect(r).toMatchObject({
      code: 7,
      stderr:
        'Imported people.csv: 5 rows — 4 created, 0 updated, 0 unchanged, 1 failed; 2 teams created: "R;D", "Sales"; ' +
        'failed rows are in people.csv.errors.jsonl.\n' +
        'plat: 1 row failed: see people.csv.errors.jsonl (line, e-mail, reason)\n',
    });
    expect(await teamNames()).toEqual(['Engineering', 'R;D', 'Research', 'Sales']);
    expect((await teamEvents()) - before).toBe(2);
    const u = await users();
    const sales = JSON.parse((await w.runCli(['teams', 'list', '--json'])).stdout).find((t: any) => t.name === 'Sales');
    const members = (await w.runCli(['teams', 'members', sales.id, '-o', 'ids'])).stdout.trim().split('\n').sort();
    expect(members).toEqual(['ada@example.com', 'bob@example.com', 'cy@example.com'].map((e) => u[e].id).sort());

    // Again: the teams are there now; nothing is created, and --json says so.
    const again = await w.runCli(['users', 'import', 'people.csv', '--create-teams', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ unchanged: 4, failed: 1, teamsCreated: [] });
    expect((await teamEvents()) - before).toBe(2);
  });

  it('with --dry-run, says which teams would be created and creates none; outcomes as if they were', async () => {
    await w.runCli(['users', 'invite', 'eve@example.com', '--name', 'Eve']);
    write('people.csv', `${csv}eve@example.com,Eve,Sales\n`);
    const [teamsBefore, usersBefore] = [await teamNames(), await users()];
    const r = await w.runCli(['users', 'import', 'people.csv', '--create-teams', '--dry-run', '--upsert']);
    expect(r.stderr).toBe(
      'Dry run of people.csv, nothing changed: 6 rows — 4 created, 1 updated, 0 unchanged, 1 failed; 2 teams would ' +
        'be created: "R;D", "Sales"; failed rows are in people.csv.errors.jsonl.\n' +
        'plat: 1 row failed: see people.csv.errors.jsonl (line, e-mail, reason)\n',
    );
    // Without --upsert, Eve (who exists, in no team) differs: a conflict, as the real run would say.
    const create = await w.runCli(['users', 'import', 'people.csv', '--create-teams', '--dry-run', '--json']);
    expect(JSON.parse(create.stdout)).toMatchObject({ created: 4, failed: 2, teamsCreated: ['R;D', 'Sales'] });
    expect(errorsOf('people.csv.errors.jsonl').at(-1)).toEqual({
      line: 7,
      email: 'eve@example.com',
      code: 'conflict',
      message: 'eve@example.com is already a member with other teams: upsert to update it',
    });
    expect([await teamNames(), await users()]).toEqual([teamsBefore, usersBefore]);
  });

  it('resumed, it creates only what the first run did not, and reports what it created itself', async () => {
    write('people.csv', csv);
    let handler: (() => void) | undefined;
    const stopped = await w.runCli(
      ['users', 'import', 'people.csv', '--create-teams', '--batch-size', '1', '--concurrency', '1'],
      {
        deps: {
          onShutdown: (h) => {
            handler = h;
            return () => {};
          },
          transport: async (r) => {
            const t = await w.transport(r);
            const fetch = async (request: Request) => {
              const response = await t.fetch(request);
              if (request.url.endsWith('/users/batch')) handler?.(); // Ctrl-C once the first batch is done
              return response;
            };
            return { ...t, fetch };
          },
        },
      },
    );
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('1 team created: "Sales"; run the same command with --resume');
    const resumed = await w.runCli([
      'users',
      'import',
      'people.csv',
      '--create-teams',
      '--batch-size',
      '1',
      '--resume',
      '--json',
    ]);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ created: 4, earlier: 1, teamsCreated: ['R;D'] });
    expect(await teamNames()).toEqual(['Engineering', 'R;D', 'Research', 'Sales']);
  });
});

describe('users import, stopped and resumed', () => {
  /** Deps whose shutdown signal (Ctrl-C) fires once the `at`-th batch request is answered. */
  function interruptAfter(at: number): Partial<CliDeps> {
    let handler: (() => void) | undefined;
    return {
      ...batches(async (n, _request, pass) => {
        const response = await pass();
        if (n === at) handler?.();
        return response;
      }),
      onShutdown: (h) => {
        handler = h;
        return () => {
          handler = undefined;
        };
      },
    };
  }

  it('Ctrl-C finishes the batches in flight and exits 130; --resume does the rest, every row once', async () => {
    write('people.csv', `${people(4)},No Email\n${people(5, 5).replace('email,name\n', '')}`);
    const stopped = await w.runCli(['users', 'import', 'people.csv', '--batch-size', '2', '--concurrency', '1'], {
      deps: interruptAfter(2),
    });
    expect(stopped).toMatchObject({
      code: 130,
      stderr:
        'Stopping: finishing the batches in flight (Ctrl-C again stops at once; they are then sent again on --resume)\n' +
        'Stopped importing people.csv: 4 rows — 4 created, 0 updated, 0 unchanged, 0 failed; run the same command ' +
        'with --resume to go on.\nplat: interrupted\n',
    });
    expect(exists('people.csv.errors.jsonl.checkpoint')).toBe(true);

    // Without --resume, the checkpoint is not thrown away.
    expect(await w.runCli(['users', 'import', 'people.csv'])).toMatchObject({
      code: 2,
      stderr:
        'plat: people.csv.errors.jsonl.checkpoint records an unfinished import (4 rows done): add --resume to go on ' +
        'with it, or delete it to start over\n',
    });
    expect(await w.runCli(['users', 'import', 'people.csv', '--resume', '--upsert'])).toMatchObject({
      code: 2,
      stderr:
        'plat: people.csv.errors.jsonl.checkpoint was written by an import with --format csv --batch-size 2: resume ' +
        'with the same options, or delete it to start over\n',
    });

    let sent = 0;
    const deps = batches(async (_n, _request, pass) => {
      sent++;
      return pass();
    });
    const resumed = await w.runCli(['users', 'import', 'people.csv', '--resume', '--batch-size', '2'], { deps });
    expect(resumed).toMatchObject({
      code: 7,
      stderr:
        'Imported people.csv: 10 rows (4 of them by an earlier run) — 9 created, 0 updated, 0 unchanged, 1 failed; ' +
        'failed rows are in people.csv.errors.jsonl.\nplat: 1 row failed: see people.csv.errors.jsonl (line, e-mail, reason)\n',
    });
    expect(sent).toBe(3); // lines 6–7, 8–9, 10–11: the first two batches were skipped
    expect(errorsOf('people.csv.errors.jsonl')).toEqual([
      { line: 6, email: null, code: 'validation_error', message: 'email: missing' },
    ]);
    expect(exists('people.csv.errors.jsonl.checkpoint')).toBe(false);
    const counts = await createdCount();
    expect(Object.values(counts)).toEqual(Array(9).fill(1));
  });

  it('a batch whose answer was lost is sent again: its rows come out unchanged, never done twice', async () => {
    write('people.csv', people(6));
    let lost = false;
    const deps = batches(async (n, _request, pass) => {
      const response = await pass();
      if (n === 2 && !lost) {
        lost = true; // the server did the work; the connection dropped before the answer came
        throw reset();
      }
      return response;
    });
    const r = await w.runCli(['users', 'import', 'people.csv', '--batch-size', '2', '--concurrency', '1'], { deps });
    expect(r).toMatchObject({
      code: 0,
      stderr: 'Imported people.csv: 6 rows — 4 created, 0 updated, 2 unchanged, 0 failed.\n',
    });
    expect(Object.values(await createdCount())).toEqual(Array(6).fill(1));
  });

  it('a server out of reach stops the import (exit 9) after the retries; --resume goes on from there', async () => {
    write('people.csv', people(6));
    const down = batches(async (n, _request, pass) => {
      if (n >= 2) throw reset();
      return pass();
    });
    const argv = ['users', 'import', 'people.csv', '--batch-size', '2'];
    const r = await w.runCli([...argv, '--concurrency', '1'], { deps: down });
    expect(r).toMatchObject({
      code: 9,
      stderr:
        'Stopped importing people.csv: 2 rows — 2 created, 0 updated, 0 unchanged, 0 failed; run the same command ' +
        'with --resume to go on.\nplat: POST http://embedded.plat failed (ECONNRESET) after 3 retries\n',
    });
    const resumed = await w.runCli([...argv, '--resume']);
    expect(resumed.stderr).toBe(
      'Imported people.csv: 6 rows (2 of them by an earlier run) — 6 created, 0 updated, 0 unchanged, 0 failed.\n',
    );
    expect(Object.values(await createdCount())).toEqual(Array(6).fill(1));
  });

  it('stops at input it cannot read past, sending nothing of that batch; fixed, --resume goes on', async () => {
    write('people.csv', `${people(4)}"broken"x,Y\nzed@example.com,Zed\n`);
    const r = await w.runCli(['users', 'import', 'people.csv', '--batch-size', '3']);
    expect(r).toMatchObject({
      code: 7,
      stderr:
        'Stopped importing people.csv: 4 rows — 3 created, 0 updated, 0 unchanged, 1 failed; failed rows are in ' +
        'people.csv.errors.jsonl; run the same command with --resume to go on.\n' +
        'plat: line 6: a quoted field goes on after its closing quote: the rest of the input cannot be read, so lines ' +
        '5 on were not sent; fix it, then run the same command with --resume\n',
    });
    write('people.csv', `${people(4)}"fixed@example.com",Y\nzed@example.com,Zed\n`);
    const resumed = await w.runCli(['users', 'import', 'people.csv', '--batch-size', '3', '--resume']);
    expect(resumed).toMatchObject({
      code: 0,
      stderr:
        'Imported people.csv: 6 rows (3 of them by an earlier run) — 6 created, 0 updated, 0 unchanged, 0 failed.\n',
    });
    expect(exists('people.csv.errors.jsonl')).toBe(false);
  });

  it('refuses to resume when the input changed where it was done, sending nothing', async () => {
    write('people.csv', people(6));
    await w.runCli(['users', 'import', 'people.csv', '--batch-size', '2', '--concurrency', '1'], {
      deps: interruptAfter(2),
    });
    write('people.csv', people(6).replace('Person 2', 'Person Two'));
    let sent = 0;
    const deps = batches(async (_n, _r, pass) => {
      sent++;
      return pass();
    });
    const r = await w.runCli(['users', 'import', 'people.csv', '--batch-size', '2', '--resume'], { deps });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'plat: the input changed since the checkpoint was written (its first 5 lines, imported then): which rows were ' +
        'done can no longer be told. Delete people.csv.errors.jsonl.checkpoint and run again without --resume',
    );
    expect(sent).toBe(0);
  });
});

describe('users import, guarding what the user named', () => {
  it('refuses an errors file that is the file being imported, and leaves it alone', async () => {
    write('people.csv', people(2));
    const r = await w.runCli(['users', 'import', 'people.csv', '--errors', './people.csv']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--errors ./people.csv: that is the file being imported; name another');
    expect(read('people.csv')).toBe(people(2));
    expect(Object.keys(await users())).toEqual(['admin@localhost']);
  });

  it('refuses a metadata.__proto__ column before sending anything', async () => {
    write('people.csv', 'email,metadata.__proto__\nada@example.com,x\n');
    const r = await w.runCli(['users', 'import', 'people.csv']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('"__proto__" cannot be a metadata key');
    expect(Object.keys(await users())).toEqual(['admin@localhost']);
  });

  it('fails alone a JSON row whose metadata holds __proto__, which the API would refuse with its whole batch', async () => {
    write(
      'people.jsonl',
      '{"email":"ada@example.com"}\n{"email":"eve@example.com","metadata":{"__proto__":"x"}}\n{"email":"bob@example.com"}\n',
    );
    const r = await w.runCli(['users', 'import', 'people.jsonl']);
    expect(r.code).toBe(7);
    expect(errorsOf('people.jsonl.errors.jsonl')).toEqual([
      {
        line: 2,
        email: 'eve@example.com',
        code: 'validation_error',
        message: 'metadata: "__proto__" cannot be used as a key',
      },
    ]);
    expect(Object.keys(await users()).sort()).toEqual(['ada@example.com', 'admin@localhost', 'bob@example.com']);
  });
});
