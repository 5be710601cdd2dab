import { Readable, Writable } from 'node:stream';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgRole } from '../../src/contract/permissions.js';
import { GENERATED_PASSWORD_COST, hashPassword } from '../../src/platform/auth/passwords.js';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { baseOf } from '../helpers/internals.js';
import { OWNER_EMAIL, person, type SignInServer, signInServer } from '../helpers/sign-in.js';
import { cleanUpProcesses, processHome, startPlat } from '../helpers/spawn.js';

/**
 * `plat mfa` and `plat orgs update --mfa` (docs/cli.md, "Second factor") against a real listener, each user signed in
 * with `plat login` as a person would be; the codes an authenticator app would show are computed here (otpauth) from
 * the secret the command printed, on the real clock the server checks them with.
 */

let s: SignInServer;
let w: CliWorld;
const PASSWORD = 'a long enough password for the members';
const ADMIN = 'admin@acme.test';
const MEMBER = 'member@acme.test';

/** A member of the server's organization with a password (written as an invitation's acceptance would). */
async function addMember(email: string, role: OrgRole): Promise<string> {
  const base = baseOf(s.server.platform);
  const id = base.ids('user');
  await base.stores.users.insertAccount(id, email, true, base.now());
  await base.stores.users.insertMembership({
    orgId: s.orgId,
    userId: id,
    email,
    name: null,
    role,
    status: 'active',
    now: base.now(),
  });
  await base.stores.users.setPassword(id, await hashPassword(PASSWORD, GENERATED_PASSWORD_COST), base.now());
  return id;
}

/**
 * `plat --profile PROFILE login` at the server, the person signing in at the printed URL — with a code of the app
 * whose secret is given, for the next 30-second step (the one before may have been used).
 */
async function login(profile: string, email: string, password?: string, secret?: string): Promise<void> {
  const p = person({ email, password, code: secret ? () => codeFor(secret, Date.now() + 30_000) : undefined });
  const r = await w.runCli(['--profile', profile, 'login', '--base-url', s.url, '--no-browser'], {
    onStderr: p.onStderr,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(await p.visit()).toMatchObject({ status: 200 });
}

/** `plat --profile PROFILE …` */
const as = (profile: string, argv: string[]) => w.runCli(['--profile', profile, ...argv]);

async function json(profile: string, argv: string[]) {
  const r = await as(profile, [...argv, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** The code an authenticator app shows now for a base32 secret (SHA-1, 6 digits, 30 s: every app's defaults). */
const codeFor = (secret: string, at = Date.now()) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

/** Six digits that are no code of the secret's around now (the server takes the step before and after too). */
function wrongCode(secret: string): string {
  const near = new Set([-60_000, -30_000, 0, 30_000, 60_000].map((d) => codeFor(secret, Date.now() + d)));
  for (let n = 123456; ; n++) if (!near.has(String(n))) return String(n);
}

/** The secret in what `enroll totp` printed (`Secret  BASE32`). */
const secretIn = (stdout: string) => /^Secret {2}([A-Z2-7]+)$/m.exec(stdout)?.[1] as string;

/** A writable that keeps what is written, a terminal or not. */
function capture(tty: boolean): Writable & { isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  }) as Writable & { isTTY: boolean; text(): string };
  stream.isTTY = tty;
  stream.text = () => chunks.join('');
  return stream;
}

const PROMPT = 'Code from the app: ';
/** A factor id that is nobody's. */
const F = 'mfa_6Tn3vQ8xLc1Wd5Rk9Hb2';

/**
 * A person at a terminal who types a line each time plat asks for a code: the next of `answers`, made from what
 * stdout shows by then (the secret). Stdout is a terminal unless `stdoutTty` is false.
 */
async function atTerminal(
  argv: string[],
  answers: ((stdout: string) => string)[],
  { stdoutTty = true, env }: { stdoutTty?: boolean; env?: Record<string, string> } = {},
) {
  const stdout = capture(stdoutTty);
  const stdin = new Readable({ read() {} }) as Readable & { isTTY: boolean };
  stdin.isTTY = true;
  let asked = 0;
  const onStderr = (text: string) => {
    for (const prompts = text.split(PROMPT).length - 1; asked < prompts; asked++) {
      const answer = answers[asked];
      stdin.push(answer ? `${answer(stdout.text())}\n` : null);
    }
  };
  const r = await w.runCli(argv, { tty: true, deps: { stdin, stdout }, onStderr, env });
  return { ...r, stdout: stdout.text(), asked };
}

const FACTOR_HEADER = 'ID\tTYPE\tNAME\tCREATED\tLAST USED\tREMAINING';
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
const RECOVERY_CODE = /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/;
/** The factor id in what a finished enrolment said. */
const enrolledId = (name: string, stderr: string) =>
  new RegExp(`Enrolled authenticator app "${name}" \\((mfa_\\w+)\\)`).exec(stderr)?.[1] as string;
const enrolled = (name: string, id: string) =>
  `Enrolled authenticator app "${name}" (${id}): signing in with a password now asks for a code from it.\n`;
const CODES_ONCE =
  'Your recovery codes are below, shown this once: keep them where you keep passwords. Each signs in once in place ' +
  'of a code, should the app be lost (docs/mfa.md).\n';

let ownerFactor: string;
let ownerSecret: string;
let memberFactor: string;

beforeAll(async () => {
  s = await signInServer();
  w = cliWorld();
  await addMember(ADMIN, 'admin');
  await addMember(MEMBER, 'member');
  // Signed in before any factor or policy: a later sign-in would be asked for a code.
  await login('owner', OWNER_EMAIL);
  await login('admin', ADMIN, PASSWORD);
  await login('member', MEMBER, PASSWORD);
});
afterAll(async () => {
  cleanUpProcesses();
  w?.cleanup();
  await s?.close();
});

describe('plat mfa enroll totp', () => {
  it('on a terminal: draws the QR code, prints the URI, asks again after a wrong code; recovery codes', async () => {
    const r = await atTerminal(
      ['--profile', 'owner', 'mfa', 'enroll', 'totp'],
      [(out) => wrongCode(secretIn(out)), (out) => codeFor(secretIn(out))],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.asked).toBe(2);
    const [qr, rest] = r.stdout.split('\n\nURI     ') as [string, string];
    // Two rows of modules a line: light ones as blocks (a dark terminal's foreground), with a quiet zone around.
    expect(qr).toMatch(/^[█▀▄ ]+(\n[█▀▄ ]+)+$/);
    expect(new Set(qr.split('\n').map((l) => [...l].length)).size).toBe(1);
    const lines = rest.split('\n');
    const uri = new URL(lines[0] as string);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    const secret = secretIn(r.stdout);
    ownerSecret = secret;
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(lines[1]).toBe(`Secret  ${secret}`);
    const codes = lines.slice(2, -1);
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(RECOVERY_CODE);
    expect(lines.at(-1)).toBe('');

    const stderr = r.stderr.split(PROMPT);
    expect(stderr[0]).toBe(
      'Scan this QR code with your authenticator app (or type the secret in), then type the 6-digit code it shows.\n',
    );
    expect(stderr[1]).toBe(
      'plat: the code is not the one the app shows now: check it, and the clock of the device; try again ' +
        '(2 tries left)\n',
    );
    ownerFactor = enrolledId('Authenticator app', stderr[2] as string);
    expect(stderr[2]).toBe(enrolled('Authenticator app', ownerFactor) + CODES_ONCE);

    // Listed (never with its secret or the codes), with the set of recovery codes beside it.
    const listed = await as('owner', ['mfa', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout.split('\n');
    expect(rows[0]).toBe(FACTOR_HEADER);
    expect(rows[1]).toMatch(new RegExp(`^${ownerFactor}\ttotp\tAuthenticator app\t${TIME}\t(${TIME})?\t$`));
    expect(rows[2]).toMatch(new RegExp(`^mfa_\\w+\trecovery_codes\t[^\t]+\t${TIME}\t\t10$`));
    expect(rows.slice(3)).toEqual(['']);
    const asJson = await as('owner', ['mfa', 'list', '--json']);
    for (const c of [secret, ...codes]) expect(asJson.stdout).not.toContain(c);
  });

  it('draws the QR code when asked (--qr) with stdout not a terminal, and not with --no-qr on one', async () => {
    // The session signed in before the first factor may no longer change them: sign in again, with a code.
    const stale = await atTerminal(['--profile', 'owner', 'mfa', 'enroll', 'totp'], []);
    expect(stale).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        'plat: this sign-in did not use your second factor: run plat login again (it asks for a code), then plat ' +
        'mfa enroll totp [request req_…]\n',
    });
    await login('owner', OWNER_EMAIL, undefined, ownerSecret);
    const piped = await atTerminal(
      ['--profile', 'owner', 'mfa', 'enroll', 'totp', '--qr', '--name', 'Tablet'],
      [(out) => codeFor(secretIn(out))],
      { stdoutTty: false },
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/^[█▀▄ ]+\n[\s\S]*\n\nURI {5}otpauth:\/\/totp\/\S+\nSecret {2}[A-Z2-7]+\n$/);
    // The account has its recovery codes: a second factor comes without.
    const tablet = enrolledId('Tablet', piped.stderr);
    expect(piped.stderr).toBe(
      'Scan this QR code with your authenticator app (or type the secret in), then type the 6-digit code it shows.\n' +
        PROMPT +
        enrolled('Tablet', tablet),
    );

    const plain = await atTerminal(
      ['--profile', 'owner', 'mfa', 'enroll', 'totp', '--no-qr', '--name', 'Laptop'],
      [(out) => codeFor(secretIn(out))],
    );
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^URI {5}otpauth:\/\/totp\/\S+\nSecret {2}[A-Z2-7]+\n$/);
    expect(plain.stderr).toMatch(
      /^Add this to your authenticator app \(the URI, or the secret typed in\), then type the 6-digit code/,
    );
    expect((await json('owner', ['mfa', 'list'])).map((f: { type: string; name: string }) => [f.type, f.name])).toEqual(
      [
        ['totp', 'Authenticator app'],
        ['recovery_codes', expect.any(String)],
        ['totp', 'Tablet'],
        ['totp', 'Laptop'],
      ],
    );
  });

  it('in a script: --json begins (no question), --factor and --code finish; a wrong code changes nothing', async () => {
    const begun = await as('member', ['mfa', 'enroll', 'totp', '--json']);
    expect(begun.code, begun.stderr).toBe(0);
    const e = JSON.parse(begun.stdout);
    expect(e).toEqual({
      factorId: expect.stringMatching(/^mfa_\w+$/),
      secret: expect.stringMatching(/^[A-Z2-7]+$/),
      otpauthUri: expect.stringMatching(/^otpauth:\/\/totp\//),
    });
    expect(begun.stderr).toBe(`Finish with: plat mfa enroll totp --factor ${e.factorId} --code CODE\n`);

    const wrong = await as('member', ['mfa', 'enroll', 'totp', '--factor', e.factorId, '--code', wrongCode(e.secret)]);
    expect(wrong).toMatchObject({
      code: 7,
      stdout: '',
      stderr:
        'plat: --code: the code is not the one the app shows now: check it, and the clock of the device ' +
        '[request req_…]\n',
    });
    expect(await json('member', ['mfa', 'list'])).toEqual([]);

    // Finished without -o: the recovery codes on stdout, this once, the rest on stderr.
    const done = await as('member', ['mfa', 'enroll', 'totp', '--factor', e.factorId, '--code', codeFor(e.secret)]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe(enrolled('Authenticator app', e.factorId) + CODES_ONCE);
    const codes = done.stdout.split('\n').slice(0, -1);
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(RECOVERY_CODE);
    memberFactor = e.factorId;
    await login('member', MEMBER, PASSWORD, e.secret);

    // Once finished, it is finished.
    expect(
      await as('member', ['mfa', 'enroll', 'totp', '--factor', e.factorId, '--code', codeFor(e.secret)]),
    ).toMatchObject({
      code: 6,
      stderr: expect.stringMatching(/^plat: this authenticator app is already verified \[request req_…\]\n$/),
    });

    // A second one: --json all the way, no recovery codes this time.
    const phone = await json('member', ['mfa', 'enroll', 'totp', '--name', 'Phone']);
    const verified = await json('member', [
      'mfa',
      'enroll',
      'totp',
      '--factor',
      phone.factorId,
      '--code',
      codeFor(phone.secret),
    ]);
    expect(verified).toEqual({
      factor: {
        id: phone.factorId,
        type: 'totp',
        name: 'Phone',
        createdAt: expect.stringMatching(new RegExp(`^${TIME}$`)),
        lastUsedAt: expect.anything(),
      },
      recoveryCodes: null,
    });
    expect(
      (await json('member', ['mfa', 'list'])).map((f: { type: string; name: string }) => [f.type, f.name]),
    ).toEqual([
      ['totp', 'Authenticator app'],
      ['recovery_codes', expect.any(String)],
      ['totp', 'Phone'],
    ]);
  });

  it('the built plat (launcher, snapshot) enrolls with --json, then --factor and --code', async () => {
    const token = await as('admin', ['auth', 'token']);
    expect(token.code, token.stderr).toBe(0);
    const env = { ...processHome('plat-mfa'), PLAT_BASE_URL: `${s.url}/v2`, PLAT_TOKEN: token.stdout.trim() };
    const plat = (argv: string[]) => startPlat(env, argv).done;
    const begun = await plat(['mfa', 'enroll', 'totp', '--json', '--name', 'Work phone']);
    expect(begun.code, begun.stderr).toBe(0);
    const e = JSON.parse(begun.stdout);
    const done = await plat(['mfa', 'enroll', 'totp', '--factor', e.factorId, '--code', codeFor(e.secret)]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe(enrolled('Work phone', e.factorId) + CODES_ONCE);
    expect(done.stdout).toMatch(/^([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}\n){10}$/);
    const listed = await plat(['mfa', 'list', '-o', 'ids']);
    expect(listed).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^${e.factorId}\nmfa_\\w+\n$`)) });
  });

  it('refuses what cannot work before enrolling anything: no terminal to ask on, --code without --factor', async () => {
    expect(await as('member', ['mfa', 'enroll', 'totp'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'plat: plat mfa enroll totp asks for a code on a terminal, and stdin is not one: in a script, begin with ' +
        '--json, then finish with --factor FACTOR --code CODE\n',
    });
    expect(await as('member', ['mfa', 'enroll', 'webauthn'])).toMatchObject({
      code: 2,
      stderr:
        'plat: plat mfa enroll webauthn: the command line enrolls totp (an authenticator app); a passkey is ' +
        'enrolled in a browser (docs/mfa.md)\n',
    });
    const noCode = await as('member', ['mfa', 'enroll', 'totp', '--factor', F, '--json']);
    expect(noCode).toMatchObject({ code: 2, stdout: '' });
    expect(JSON.parse(noCode.stderr)).toEqual({
      error: {
        code: 'usage_error',
        message: '--factor without --code asks for the code on a terminal (without -o/--json): add --code',
        status: null,
      },
    });
    expect(await as('member', ['mfa', 'enroll', 'totp', '--code', '123456'])).toMatchObject({
      code: 2,
      stderr:
        'plat: --code finishes an enrolment begun with --json: give its --factor too (a new enrolment has a new ' +
        'secret)\n',
    });
  });

  it('an API key is told to sign in with plat login (403, exit 4)', async () => {
    const key = (await json('owner', ['keys', 'create', '--name', 'ci'])).key as string;
    const env = { PLAT_BASE_URL: `${s.url}/v2`, PLAT_API_KEY: key };
    const r = await atTerminal(['mfa', 'enroll', 'totp'], [], { env });
    expect(r).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        'plat: an API key cannot enroll a second factor: its user does, signed in — run plat login, then plat mfa ' +
        'enroll totp [request req_…]\n',
      asked: 0,
    });
    // --json keeps the API's own error object.
    const scripted = await w.runCli(['mfa', 'enroll', 'totp', '--json'], { env });
    expect(scripted).toMatchObject({ code: 4, stdout: '' });
    expect(JSON.parse(scripted.stderr)).toMatchObject({ error: { code: 'insufficient_permissions', status: 403 } });
  });
});

describe('plat mfa recovery-codes', () => {
  it('replaces your recovery codes after asking, printing the new ones this once', async () => {
    expect(await as('owner', ['mfa', 'recovery-codes'])).toMatchObject({
      code: 2,
      stderr:
        'plat: refusing to replace your recovery codes (the earlier ones stop working) without confirmation: pass ' +
        '--yes (stdin is not a terminal)\n',
    });
    const r = await as('owner', ['mfa', 'recovery-codes', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    const codes = r.stdout.split('\n').slice(0, -1);
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(RECOVERY_CODE);
    expect(r.stderr).toMatch(/^Your new recovery codes are below, shown this once/);
    const asJson = await json('owner', ['mfa', 'recovery-codes', '--yes']);
    expect(asJson.recoveryCodes).toHaveLength(10);
    expect(asJson.recoveryCodes.filter((c: string) => codes.includes(c))).toEqual([]);
  });
});

describe('plat mfa remove', () => {
  it('removes one of your own, by name, after asking (--yes without a terminal)', async () => {
    expect(await as('member', ['mfa', 'remove', 'Phone'])).toMatchObject({
      code: 2,
      stderr:
        'plat: refusing to remove second factor Phone without confirmation: pass --yes (stdin is not a terminal)\n',
    });
    const phone = (await json('member', ['mfa', 'list'])).find((f: { name: string }) => f.name === 'Phone').id;
    expect(await as('member', ['mfa', 'remove', 'phone', '--yes'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `Removed second factor phone (${phone}).\n`,
    });
    expect(await as('member', ['mfa', 'remove', 'Phone', '--yes'])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/^plat: no second factor "Phone" of user user_\w+ \(give its id or name\)\n$/),
    });
    expect((await json('member', ['mfa', 'list'])).map((f: { type: string }) => f.type)).toEqual([
      'totp',
      'recovery_codes',
    ]);
  });

  it("a member cannot reset another's (403, exit 4); an admin cannot reset an owner's", async () => {
    const member = await as('member', ['mfa', 'remove', ownerFactor, '--user', OWNER_EMAIL, '--yes']);
    expect(member).toMatchObject({ code: 4, stdout: '' });
    expect(member.stderr).toMatch(
      /^plat: .+: only owners and admins may reset another user's second factors \[request req_…\]\n$/,
    );
    expect(await as('admin', ['mfa', 'remove', ownerFactor, '--user', OWNER_EMAIL, '--yes'])).toMatchObject({
      code: 4,
      stderr: "plat: only owners can reset an owner's second factors [request req_…]\n",
    });
    expect((await json('owner', ['mfa', 'list'])).map((f: { id: string }) => f.id)).toContain(ownerFactor);
  });

  it("an owner resets a member's: the recovery codes go with the last factor", async () => {
    const r = await as('owner', ['mfa', 'remove', memberFactor, '--user', MEMBER, '--yes']);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: `Removed second factor ${memberFactor} of ${MEMBER}.\n` });
    expect(await json('owner', ['mfa', 'list', '--user', MEMBER])).toEqual([]);
    expect(await json('member', ['mfa', 'list'])).toEqual([]);
  });
});

describe('plat orgs update --mfa', () => {
  it('an owner requires a second factor, and makes it optional again; an admin may not (exit 4)', async () => {
    expect(await as('admin', ['orgs', 'update', '--mfa', 'required'])).toMatchObject({
      code: 4,
      stdout: '',
      stderr: 'plat: only owners can change the mfa policy [request req_…]\n',
    });
    expect(await as('owner', ['orgs', 'update', '--mfa', 'sometimes'])).toMatchObject({
      code: 7,
      stderr: 'plat: invalid --mfa "sometimes": expected one of optional, required\n',
    });
    expect(await json('owner', ['orgs', 'update', '--mfa', 'required'])).toMatchObject({
      id: s.orgId,
      mfa: 'required',
    });
    expect(await json('admin', ['orgs', 'get'])).toMatchObject({ mfa: 'required' });
    expect(await json('owner', ['orgs', 'update', '--mfa', 'optional'])).toMatchObject({ mfa: 'optional' });
  });
});
