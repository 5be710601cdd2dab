import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/platform/auth/passwords.js';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { type DocumentServer, documentServer, oidcIssuer } from '../helpers/idp-documents.js';

/** An OpenID provider's discovery document on loopback, for `sso set --protocol oidc`. */
let idp: DocumentServer;
beforeAll(async () => {
  idp = await documentServer();
});
afterAll(() => idp.close());

let w: CliWorld;
beforeEach(() => {
  w = cliWorld();
});
afterEach(() => w.cleanup());

const NOTICE =
  'Created the embedded platform at <tmp>/data/local.db: organization org_0001, owner admin@localhost.\n' +
  'Its API key is stored in <tmp>/config/credentials.json.\n';
/** The stored password hash of an account of the embedded platform in <dataDir>/local.db. */
function passwordHash(email: string): string | null | undefined {
  const db = new Database(join(w.dataDir, 'local.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT password_hash FROM accounts WHERE email = ?').get(email) as
      | { password_hash: string | null }
      | undefined;
    return row?.password_hash;
  } finally {
    db.close();
  }
}

/** After an implicit bootstrap: the generated password is mentioned, never shown. */
const HINT =
  'The owner has a generated sign-in password (not shown); choose one with: plat local init --password-stdin\n';
/** After `local init` without --password: the password is in the command's output. */
const STORE_IT = "Store the owner's generated sign-in password now: it is not shown again.\n";

describe('the embedded default', () => {
  it('the first command creates the platform and says so once, on stderr', async () => {
    const first = await w.runCli(['orgs', 'list', '-o', 'ids']);
    expect(first).toMatchObject({ code: 0, stdout: 'org_0001\n', stderr: NOTICE + HINT });
    expect(first.raw.stderr).not.toContain(w.storedKey() as string);
    expect(await w.runCli(['orgs', 'list', '-o', 'ids'])).toMatchObject({ code: 0, stdout: 'org_0001\n', stderr: '' });
    expect(JSON.parse(w.configFiles().split('\n\n')[0] as string)).toEqual({
      profiles: { local: { org: 'org_0001' } },
    });
    expect(statSync(join(w.configDir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(w.configDir, 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it("without an organization in the profile, commands act in the credential's own (GET /auth/whoami)", async () => {
    await w.runCli(['orgs', 'list']);
    writeFileSync(join(w.configDir, 'config.json'), '{"profiles":{}}');
    const r = await w.runCli(['users', 'list', '-o', 'ids', '--verbose']);
    expect(r).toMatchObject({
      code: 0,
      stdout: 'user_0001\n',
      stderr:
        // No rate limit: the embedded platform does not limit its own commands.
        '→ GET http://embedded.plat/v2/auth/whoami · 200 · Nms · request req_…\n' +
        '→ GET http://embedded.plat/v2/organizations/org_0001/users?limit=20 · 200 · Nms · request req_…\n',
    });
  });

  it('--quiet keeps the notice off stderr', async () => {
    expect(await w.runCli(['orgs', 'list', '-q', '-o', 'ids'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('--sandbox is a second database with its own test key', async () => {
    const r = await w.runCli(['--sandbox', 'keys', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('at <tmp>/data/local-sandbox.db');
    expect(JSON.parse(r.stdout)).toMatchObject([{ environment: 'test', multiOrganization: true }]);
    expect(w.storedKey('local:sandbox')).toMatch(/^plat_test_/);
    expect(existsSync(join(w.dataDir, 'local.db'))).toBe(false);
  });
});

describe('plat local', () => {
  it('init --json prints the ids, the db and the new key; again it reports without the key', async () => {
    const r = await w.runCli([
      'local',
      'init',
      '--org',
      'Acme Dev',
      '--email',
      'me@acme.test',
      '--password',
      'a long enough passphrase',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(NOTICE.replace('admin@localhost', 'me@acme.test'));
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      organizationId: 'org_0001',
      userId: 'user_0001',
      apiKey: w.storedKey(),
      db: '<tmp>/data/local.db',
    });
    expect((await w.runCli(['orgs', 'get', '--json'])).stdout).toContain('"name": "Acme Dev"');
    expect(await w.runCli(['local', 'init', '--email', 'me@acme.test', '--json'])).toMatchObject({
      code: 0,
      stdout: `{\n  "organizationId": "org_0001",\n  "userId": "user_0001",\n  "db": "<tmp>/data/local.db"\n}\n`,
      stderr: 'The embedded platform at <tmp>/data/local.db exists already.\n',
    });
  });

  it('init without --json shows the generated password once, in a PASSWORD column; a short password is refused first', async () => {
    expect(await w.runCli(['local', 'init', '--password', 'short'])).toMatchObject({
      code: 7,
      stderr: 'plat: --password must be at least 15 characters\n',
    });
    expect(existsSync(join(w.dataDir, 'local.db'))).toBe(false);
    const r = await w.runCli(['local', 'init']);
    expect(r).toMatchObject({ code: 0, stderr: NOTICE + STORE_IT });
    const m = /^ORGANIZATION\tOWNER\tPASSWORD\tDB\norg_0001\tuser_0001\t(\S{15,})\t<tmp>\/data\/local\.db\n$/.exec(
      r.stdout,
    );
    expect(m).not.toBeNull();
    const password = m?.[1] as string;
    expect(`${r.raw.stdout}${r.raw.stderr}`).not.toContain(w.storedKey() as string);
    const again = await w.runCli(['local', 'init']);
    expect(again.stdout).toBe('ORGANIZATION\tOWNER\tDB\norg_0001\tuser_0001\t<tmp>/data/local.db\n');
    expect(`${again.raw.stdout}${again.raw.stderr}`).not.toContain(password);
  });

  it('init -q still prints the generated password (the one showing), not the notice', async () => {
    const r = await w.runCli(['local', 'init', '-q']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^ORGANIZATION\tOWNER\tPASSWORD\tDB\norg_0001\tuser_0001\t\S{15,}\t/);
  });

  it('init --password shows no password at all', async () => {
    const r = await w.runCli(['local', 'init', '--password', 'correct horse battery staple']);
    expect(r).toMatchObject({ code: 0, stderr: NOTICE });
    expect(r.stdout).toBe('ORGANIZATION\tOWNER\tDB\norg_0001\tuser_0001\t<tmp>/data/local.db\n');
  });

  it('init --password on an existing platform sets the owner password (made by first use)', async () => {
    expect((await w.runCli(['orgs', 'list', '-o', 'ids'])).stderr).toBe(NOTICE + HINT);
    const hashBefore = passwordHash('admin@localhost');
    expect(hashBefore).toBeTruthy();
    const r = await w.runCli(['local', 'init', '--password', 'correct horse battery staple']);
    expect(r).toMatchObject({
      code: 0,
      stdout: 'ORGANIZATION\tOWNER\tDB\norg_0001\tuser_0001\t<tmp>/data/local.db\n',
      stderr:
        'The embedded platform at <tmp>/data/local.db exists already.\nSet the sign-in password of admin@localhost.\n',
    });
    const hash = passwordHash('admin@localhost') as string;
    expect(hash).not.toBe(hashBefore);
    expect(`${r.raw.stdout}${r.raw.stderr}`).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery staple', hash)).resolves.toBe(true);
    expect(await w.runCli(['local', 'init', '--password', 'short'])).toMatchObject({ code: 7 });
    expect(
      await w.runCli(['local', 'init', '--email', 'nobody@x.test', '--password', 'another long passphrase']),
    ).toMatchObject({
      code: 5,
      stderr:
        'The embedded platform at <tmp>/data/local.db exists already.\n' +
        'plat: no account nobody@x.test on the embedded platform at <tmp>/data/local.db\n',
    });
    expect(passwordHash('admin@localhost')).toBe(hash);
  });

  it('init --db makes that database with a key of its own, and leaves the profile as it was', async () => {
    expect((await w.runCli(['users', 'list', '-q', '-o', 'ids'])).stdout).toBe('user_0001\n');
    const config = w.configFiles().split('\n\n')[0] as string;
    const db = join(w.dir, 'dev.db');
    const made = await w.runCli(['local', 'init', '--db', db, '--json']);
    expect(made).toMatchObject({ code: 0 });
    expect(JSON.parse(made.stdout)).toEqual({
      organizationId: 'org_0002',
      userId: 'user_0002',
      apiKey: expect.stringMatching(/^plat_live_/),
      password: expect.any(String),
      db: '<tmp>/dev.db',
    });
    expect(w.storedKey(`local@${db}`)).toBe(JSON.parse(made.stdout).apiKey);
    expect(w.storedKey('local')).toMatch(/^plat_live_/);
    expect(w.storedKey('local')).not.toBe(w.storedKey(`local@${db}`));
    expect(w.configFiles().split('\n\n')[0]).toBe(config);
    expect(JSON.parse(config)).toEqual({ profiles: { local: { org: 'org_0001' } } });
    expect((await w.runCli(['local', 'path'])).stdout).toBe('<tmp>/data/local.db\n');
    // Both databases work, each with its own key and organization.
    expect((await w.runCli(['users', 'list', '-o', 'ids'])).stdout).toBe('user_0001\n');
    expect((await w.runCli(['--db', db, 'users', 'list', '-o', 'ids'])).stdout).toBe('user_0002\n');
    expect(await w.runCli(['--db', db, 'local', 'init', '-o', 'ids'])).toMatchObject({
      code: 0,
      stdout: 'org_0002\n',
      stderr: 'The embedded platform at <tmp>/dev.db exists already.\n',
    });
  });

  it('path, mail, reset', async () => {
    expect(await w.runCli(['local', 'path'])).toMatchObject({ code: 0, stdout: '<tmp>/data/local.db\n', stderr: '' });
    expect((await w.runCli(['local', 'mail'])).stdout).toBe('ID\tTO\tSUBJECT\tLINK\tCREATED\n');
    await w.runCli(['users', 'invite', 'ada@example.com']);
    const mail = JSON.parse((await w.runCli(['local', 'mail', '--to', 'ADA@example.com', '--json'])).stdout);
    expect(mail).toEqual([
      {
        id: 'mail_0001',
        to: 'ada@example.com',
        subject: expect.any(String),
        text: expect.stringContaining('Local'),
        links: [expect.stringMatching(/^http:\/\/plat\.test\//)],
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
    expect((await w.runCli(['local', 'reset'])).code).toBe(2);
    expect(existsSync(join(w.dataDir, 'local.db'))).toBe(true);
    // Commands keep no rate-limit file (they are not limited); `plat serve` leaves one, which reset removes too.
    expect(existsSync(join(w.dataDir, 'local.db.limits'))).toBe(false);
    writeFileSync(join(w.dataDir, 'local.db.limits'), '');
    expect(await w.runCli(['local', 'reset'], { tty: true, stdin: 'y\n' })).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        'Delete the embedded platform and everything in it? [y/N] Deleted the embedded platform at <tmp>/data/local.db.\n',
    });
    expect(existsSync(join(w.dataDir, 'local.db'))).toBe(false);
    expect(existsSync(join(w.dataDir, 'local.db.limits'))).toBe(false);
    expect(w.storedKey()).toBeUndefined();
    expect((await w.runCli(['users', 'list', '-o', 'ids'])).stderr).toContain('Created the embedded platform');
  });

  it('init refuses an organization name of invisible characters (7), creating nothing', async () => {
    expect(await w.runCli(['local', 'init', '--org', '\u200b\u202e'])).toMatchObject({
      code: 7,
      stdout: '',
      stderr: 'plat: --org must contain a visible character\n',
    });
    expect(existsSync(join(w.dataDir, 'local.db'))).toBe(false);
  });

  it('reset also removes the key the platform sealed its secrets with', async () => {
    const sso = ['sso', 'set', '--protocol', 'oidc', '--provider', 'custom-oidc', '--issuer', oidcIssuer(idp)];
    const set = await w.runCli([...sso, '--client-id', 'c', '--client-secret-stdin', '--map', 'email=email'], {
      stdin: 'an OIDC client secret',
    });
    expect(set.code).toBe(0);
    const keyFile = join(w.dataDir, 'local.db.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect((await w.runCli(['local', 'reset', '--yes'])).code).toBe(0);
    expect(existsSync(keyFile)).toBe(false);
  });

  it('refuses on a remote profile (2)', async () => {
    expect(await w.runCli(['--base-url', 'http://127.0.0.1:9', 'local', 'path'])).toMatchObject({
      code: 2,
      stderr: 'plat: local path works on the embedded platform, but profile "local" is remote (from --base-url)\n',
    });
  });
});

/**
 * A terminal for stdin that hands over the keys one chunk at a time, and only while it is in raw mode: had plat left
 * echo on, nothing would be typed. `modes` records each raw-mode switch.
 */
function terminal(keys: string[]) {
  const queue = [...keys];
  const modes: boolean[] = [];
  let wanted = false;
  const pump = () => {
    if (wanted && stream.isRaw && queue.length) {
      wanted = false;
      stream.push(queue.shift());
    }
  };
  const stream = new Readable({
    read() {
      wanted = true;
      pump();
    },
  }) as Readable & { isTTY: boolean; isRaw: boolean; setRawMode(raw: boolean): void };
  stream.isTTY = true;
  stream.isRaw = false;
  stream.setRawMode = (raw) => {
    modes.push(raw);
    stream.isRaw = raw;
    pump();
  };
  // What plat wrote on stderr, write by write, each with whether echo was off at the time.
  const writes: [string, boolean][] = [];
  let seen = 0;
  const onStderr = (text: string) => {
    writes.push([text.slice(seen), stream.isRaw]);
    seen = text.length;
  };
  return { stream, modes, writes, onStderr, left: () => queue.length };
}

/** `plat local init --password-stdin` with stdin on terminal `t` (stdout and stderr are pipes). */
const initOn = (t: ReturnType<typeof terminal>, argv: string[] = []) =>
  w.runCli(['local', 'init', '--password-stdin', ...argv], { deps: { stdin: t.stream }, onStderr: t.onStderr });

const DB = () => join(w.dataDir, 'local.db');
const CREATED = 'ORGANIZATION\tOWNER\tDB\norg_0001\tuser_0001\t<tmp>/data/local.db\n';

describe('plat local init --password-stdin', () => {
  it('reads a piped password, dropping one trailing line break and nothing else', async () => {
    const r = await w.runCli(['local', 'init', '--password-stdin'], { stdin: '  a long enough password \n' });
    expect(r).toMatchObject({ code: 0, stdout: CREATED, stderr: NOTICE });
    const hash = passwordHash('admin@localhost') as string;
    await expect(verifyPassword('  a long enough password ', hash)).resolves.toBe(true);
    expect(`${r.raw.stdout}${r.raw.stderr}`).not.toContain('long enough');
  });

  it('sets the password of an existing platform, and of --email’s account', async () => {
    await w.runCli(['local', 'init', '--email', 'me@acme.test', '-q']);
    const r = await w.runCli(['local', 'init', '--email', 'me@acme.test', '--password-stdin'], {
      stdin: 'correct horse battery staple\r\n',
    });
    expect(r).toMatchObject({
      code: 0,
      stdout: CREATED,
      stderr:
        'The embedded platform at <tmp>/data/local.db exists already.\nSet the sign-in password of me@acme.test.\n',
    });
    await expect(verifyPassword('correct horse battery staple', passwordHash('me@acme.test') as string)).resolves.toBe(
      true,
    );
  });

  it('refuses what the sign-in page could not take, and an empty stdin (7), creating nothing', async () => {
    for (const [stdin, stderr] of [
      ['', 'plat: --password-stdin: stdin was empty\n'],
      ['\n', 'plat: --password-stdin: stdin was empty\n'],
      ['too short\n', 'plat: --password-stdin: the password must be at least 15 characters\n'],
      [
        'first line of it\nsecond line of it\n',
        'plat: --password-stdin: stdin holds more than one line; pipe the password alone\n',
      ],
    ] as const) {
      expect(await w.runCli(['local', 'init', '--password-stdin'], { stdin })).toMatchObject({
        code: 7,
        stdout: '',
        stderr,
      });
    }
    expect(existsSync(DB())).toBe(false);
    expect(w.configFiles()).toBe('\n');
  });

  it('not with --password, nor with --api-key-stdin (2), creating nothing', async () => {
    const both = ['local', 'init', '--password', 'a long enough password', '--password-stdin'];
    expect(await w.runCli(both, { stdin: 'a long enough password' })).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "plat: option '--password <password>' cannot be used with option '--password-stdin'\n",
    });
    expect(
      await w.runCli(['--api-key-stdin', 'local', 'init', '--password-stdin'], { stdin: 'a long enough password' }),
    ).toMatchObject({ code: 2, stdout: '', stderr: 'plat: --password-stdin and --api-key-stdin both need stdin\n' });
    expect(existsSync(DB())).toBe(false);
  });

  it('on a terminal, asks twice without echo (raw mode), with backspace; the keys typed appear nowhere', async () => {
    const t = terminal(['correct horse', 'X', '\u007f', ' battery staple\r', 'correct horse battery staple\r']);
    const r = await initOn(t);
    expect(r).toMatchObject({
      code: 0,
      stdout: CREATED,
      stderr: `Password for admin@localhost: \nRepeat the password: \n${NOTICE}`,
    });
    // Each prompt shows once echo is off (what is typed after seeing it is never echoed), and echo is back after.
    expect(t.writes.slice(0, 4)).toEqual([
      ['Password for admin@localhost: ', true],
      ['\n', false],
      ['Repeat the password: ', true],
      ['\n', false],
    ]);
    expect(t.modes).toEqual([true, false, true, false]);
    expect(t.left()).toBe(0);
    expect(`${r.raw.stdout}${r.raw.stderr}`).not.toMatch(/horse|battery|staple/);
    await expect(
      verifyPassword('correct horse battery staple', passwordHash('admin@localhost') as string),
    ).resolves.toBe(true);
  });

  it('on a terminal, two passwords that differ, a short one or Ctrl-C change nothing; the terminal is restored', async () => {
    const differ = terminal(['correct horse battery staple\r', 'correct horse battery stapel\r']);
    expect(await initOn(differ)).toMatchObject({
      code: 7,
      stdout: '',
      stderr:
        'Password for admin@localhost: \nRepeat the password: \nplat: the two passwords differ; nothing was changed\n',
    });
    expect(differ.modes).toEqual([true, false, true, false]);

    // A password too short is refused at once, before it is asked again.
    const short = terminal(['too short\r', 'too short\r']);
    expect(await initOn(short)).toMatchObject({
      code: 7,
      stderr:
        'Password for admin@localhost: \nplat: the password must be at least 15 characters; nothing was changed\n',
    });
    expect(short.modes).toEqual([true, false]);

    const interrupted = terminal(['correct horse', '\u0003']);
    expect(await initOn(interrupted)).toMatchObject({
      code: 2,
      stderr: 'Password for admin@localhost: \nplat: aborted: nothing was changed\n',
    });
    expect(interrupted.modes).toEqual([true, false]);
    expect(existsSync(DB())).toBe(false);
  });

  it('on a terminal, names the account --email gives, and sets its password on an existing platform', async () => {
    await w.runCli(['local', 'init', '--email', 'me@acme.test', '-q']);
    const t = terminal(['a passphrase for me only\r', 'a passphrase for me only\r']);
    expect(await initOn(t, ['--email', 'me@acme.test'])).toMatchObject({
      code: 0,
      stdout: CREATED,
      stderr:
        'Password for me@acme.test: \nRepeat the password: \n' +
        'The embedded platform at <tmp>/data/local.db exists already.\nSet the sign-in password of me@acme.test.\n',
    });
    await expect(verifyPassword('a passphrase for me only', passwordHash('me@acme.test') as string)).resolves.toBe(
      true,
    );
  });
});

/**
 * Runs `plat serve --port 0 …` in-process; resolves once it listens, with its origin and `stop`, which sends the
 * shutdown signal and resolves with what the command printed.
 */
async function serveInProcess(args: string[], env: Record<string, string> = {}) {
  let signal: () => void = () => {};
  let resolveUrl: (url: string) => void = () => {};
  const url = new Promise<string>((r) => {
    resolveUrl = r;
  });
  const running = w.runCli(['serve', '--port', '0', ...args], {
    env,
    deps: {
      onShutdown: (handler) => {
        signal = handler;
        return () => {};
      },
    },
    onStderr: (text) => {
      const m = /Listening on (\S+)\/v2/.exec(text);
      if (m) resolveUrl(m[1] as string);
    },
  });
  const base = await url;
  return {
    base,
    stop: () => {
      signal();
      return running;
    },
  };
}

describe('plat serve', () => {
  it('serves until the shutdown signal, logging one line per request', async () => {
    const { base, stop } = await serveInProcess([]);
    const key = w.storedKey() as string;
    const health = await fetch(`${base}/v2/health`);
    expect(health.status).toBe(200);
    const users = await fetch(`${base}/v2/organizations/org_0001/users`, { headers: { 'X-API-Key': key } });
    expect(users.status).toBe(200);
    const r = await stop();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT').split('\n');
    expect(lines).toEqual([
      'Created the embedded platform at <tmp>/data/local.db: organization org_0001, owner admin@localhost.',
      'Its API key is stored in <tmp>/config/credentials.json.',
      HINT.trimEnd(),
      'Listening on http://127.0.0.1:PORT/v2 (live, <tmp>/data/local.db); Ctrl-C stops.',
      '127.0.0.1 GET /v2/health 200 Nms req_…',
      '127.0.0.1 GET /v2/organizations/org_0001/users 200 Nms req_…',
      'Shutting down: finishing requests in flight…',
      'Stopped.',
      '',
    ]);
    expect(r.raw.stderr).not.toContain(key);
  });
});

describe('plat serve and rate limits', () => {
  /** Serves, sends `count` requests with the stored key after moving the org to the free plan, returns the statuses. */
  async function statuses(args: string[], count: number, env: Record<string, string> = {}) {
    const { base, stop } = await serveInProcess(args, env);
    const headers = { 'X-API-Key': w.storedKey() as string, 'Content-Type': 'application/json' };
    await fetch(`${base}/v2/organizations/org_0001`, { method: 'PATCH', headers, body: '{"plan":"free"}' });
    const seen: number[] = [];
    for (let i = 0; i < count; i++)
      seen.push((await fetch(`${base}/v2/organizations/org_0001/users`, { headers })).status);
    const r = await stop();
    expect(r.code).toBe(0);
    return { seen, stderr: r.stderr };
  }

  it('limits by default, and not with --no-rate-limits or PLAT_RATE_LIMITS=off', async () => {
    expect((await statuses([], 12)).seen.slice(10)).toEqual([429, 429]);
    const off = await statuses(['--no-rate-limits'], 15);
    expect(off.seen).toEqual(Array(15).fill(200));
    expect(off.stderr).toContain('Rate limits are off (--no-rate-limits): for local development only.');
    expect((await statuses([], 15, { PLAT_RATE_LIMITS: 'off' })).seen).toEqual(Array(15).fill(200));
  });
});
