import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/platform/store/migrations/index.js';
import { type DocumentServer, documentServer, oidcIssuer } from '../helpers/idp-documents.js';
import { cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';

/** An OpenID provider's discovery document on loopback, for `sso set --protocol oidc`. */
let idp: DocumentServer;
beforeAll(async () => {
  idp = await documentServer();
});
afterAll(() => idp.close());

/**
 * The embedded platform's files as a user meets them, each command a spawned `plat`: the sandbox and the live
 * platform in either order, a `--db` of another file, and the files plat refuses.
 */
afterAll(cleanUpProcesses);

const plat = (env: Record<string, string>, argv: string[]) => startPlat(env, argv).done;
const config = (env: Record<string, string>) =>
  JSON.parse(readFileSync(join(env.PLAT_CONFIG_DIR as string, 'config.json'), 'utf8'));
const credentials = (env: Record<string, string>) =>
  Object.keys(JSON.parse(readFileSync(join(env.PLAT_CONFIG_DIR as string, 'credentials.json'), 'utf8')).profiles);

/** `whoami --json` → the organization and user the command acted as. */
async function whoami(env: Record<string, string>, argv: string[] = []) {
  const r = await plat(env, [...argv, 'whoami', '--json']);
  expect(r, r.stderr).toMatchObject({ code: 0 });
  const me = JSON.parse(r.stdout);
  return { org: me.organization.id as string, user: me.user.id as string, key: me.apiKey.environment as string };
}

describe('the embedded sandbox', () => {
  for (const order of [
    ['live', 'sandbox'],
    ['sandbox', 'live'],
  ]) {
    it(`works ${order[0]} first, then ${order[1]}, then ${order[0]} again: each its own organization and key`, async () => {
      const env = processHome('plat-sandbox');
      const args = (which: string) => (which === 'sandbox' ? ['--sandbox'] : []);
      const first = await whoami(env, args(order[0] as string));
      const second = await whoami(env, args(order[1] as string));
      const again = await whoami(env, args(order[0] as string));
      expect(again).toEqual(first);
      expect(second.org).not.toBe(first.org);
      const [live, sandbox] = order[0] === 'live' ? [first, second] : [second, first];
      expect(live.key).toBe('live');
      expect(sandbox.key).toBe('test');
      expect(config(env)).toEqual({ profiles: { local: { org: live.org, sandboxOrg: sandbox.org } } });
      expect(credentials(env).sort()).toEqual(['local', 'local:sandbox']);
      // Writes land in the database of each.
      expect((await plat(env, ['--sandbox', 'teams', 'create', 'Only In Sandbox', '-o', 'ids'])).code).toBe(0);
      expect((await plat(env, ['teams', 'list', '-o', 'ids'])).stdout).toBe('');
    });
  }
});

describe('--db OTHER.db', () => {
  it("makes or uses that file with its own key, and never touches the default profile's", async () => {
    const env = processHome('plat-db');
    const live = await whoami(env);
    const before = config(env);
    const other = join(env.HOME as string, 'other.db');
    const made = await plat(env, ['--db', other, 'whoami', '--json']);
    expect(made.code).toBe(0);
    expect(made.stderr).toContain(`Created the embedded platform at ${other}`);
    const otherOrg = JSON.parse(made.stdout).organization.id;
    expect(otherOrg).not.toBe(live.org);
    expect(config(env)).toEqual(before);
    expect(credentials(env).sort()).toEqual(['local', `local@${other}`]);
    // Afterwards, both still work: the default profile on local.db, and the other file with its own key.
    expect(await whoami(env)).toEqual(live);
    expect((await whoami(env, ['--db', other])).org).toBe(otherOrg);
    // A relative path names the same file.
    const relative = await startPlat(env, ['--db', 'other.db', 'whoami', '--json'], { cwd: env.HOME }).done;
    expect(JSON.parse(relative.stdout).organization.id).toBe(otherOrg);
  });

  it('keeps one credential for a relative data directory, as for an absolute one', async () => {
    const env = { ...processHome('plat-db'), PLAT_DATA_DIR: 'data' } as Record<string, string>;
    const cwd = env.HOME as string;
    const first = await startPlat(env, ['whoami', '--json'], { cwd }).done;
    const again = await startPlat(env, ['whoami', '--json'], { cwd }).done;
    expect(again, again.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(again.stdout).organization.id).toBe(JSON.parse(first.stdout).organization.id);
    expect(credentials(env)).toEqual(['local']);
  });

  it('says which key is missing for a database made elsewhere (a copy), and what to do (3)', async () => {
    const env = processHome('plat-db');
    expect((await plat(env, ['users', 'list'])).code).toBe(0);
    const copy = join(env.HOME as string, 'copy.db');
    copyFileSync(join(env.PLAT_DATA_DIR as string, 'local.db'), copy);
    expect(await plat(env, ['--db', copy, 'users', 'list'])).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        `plat: no API key is stored for the embedded platform at ${copy} (credential account "local@${copy}"): ` +
        'set PLAT_API_KEY to an API key of that platform\n',
    });
  });

  it('refuses a file in a directory that does not exist (2), and creates nothing', async () => {
    const env = processHome('plat-db');
    const missing = join(env.HOME as string, 'no-such-dir', 'x.db');
    expect(await plat(env, ['--db', missing, 'users', 'list'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        `plat: --db ${missing}: the directory ${join(env.HOME as string, 'no-such-dir')} does not exist; ` +
        `create it first (mkdir -p ${join(env.HOME as string, 'no-such-dir')}) or choose a file in an existing directory\n`,
    });
    expect(existsSync(join(env.HOME as string, 'no-such-dir'))).toBe(false);
    expect(existsSync(join(env.PLAT_CONFIG_DIR as string, 'credentials.json'))).toBe(false);
  });

  it("makes plat's own data directory when --db names a file in it", async () => {
    const env = processHome('plat-db');
    const r = await plat(env, ['--db', join(env.PLAT_DATA_DIR as string, 'dev.db'), 'users', 'list', '-o', 'ids']);
    expect(r.code).toBe(0);
    expect(existsSync(join(env.PLAT_DATA_DIR as string, 'dev.db'))).toBe(true);
  });
});

describe('databases plat refuses', () => {
  it('a database written by a newer plat: a clear message, exit 1, the file unchanged', async () => {
    const env = processHome('plat-newer');
    expect((await plat(env, ['users', 'list'])).code).toBe(0);
    const file = join(env.PLAT_DATA_DIR as string, 'local.db');
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const before = readFileSync(file);
    expect(await plat(env, ['users', 'list'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        `plat: ${file} was written by a newer version of plat (schema version ${SCHEMA_VERSION + 1}; this one knows ` +
        `up to ${SCHEMA_VERSION}): upgrade plat to use it. Nothing was changed.\n`,
    });
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('a PLAT_SECRET_KEY that is not a 32-byte key: a clear message that does not echo it', async () => {
    const env: Record<string, string> = { ...processHome('plat-key'), PLAT_SECRET_KEY: 'hunter2-hunter2' };
    mkdirSync(env.PLAT_DATA_DIR as string, { recursive: true });
    const r = await plat(env, ['users', 'list']);
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'plat: PLAT_SECRET_KEY must be 32 random bytes in base64 or hex (make one with: openssl rand -base64 32)\n',
    });
  });
});

describe('the key the secrets are sealed with', () => {
  it('missing: plat serve refuses to start, and plat local forget-secrets is the way out', async () => {
    const env = processHome('plat-lost-key');
    const sso = ['sso', 'set', '--protocol', 'oidc', '--provider', 'custom-oidc', '--issuer', oidcIssuer(idp)];
    const set = await startPlat(env, [...sso, '--client-id', 'c', '--client-secret-stdin', '--map', 'email=email'], {
      input: 'the OIDC client secret',
    }).done;
    expect(set, set.stderr).toMatchObject({ code: 0 });
    const db = join(env.PLAT_DATA_DIR as string, 'local.db');
    rmSync(`${db}.key`);
    const serve = await plat(env, ['serve', '--port', '0']);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(
      new RegExp(
        `^plat: the secret key file ${db}\\.key is missing, but the database holds secrets sealed with its key \\([\\w-]{8}\\): restore the key the database was written with .*or discard the sealed secrets with: plat local forget-secrets\n$`,
      ),
    );
    expect(existsSync(`${db}.key`)).toBe(false);
    // Reads that need no secret still work.
    expect((await plat(env, ['sso', 'get', '--json'])).code).toBe(0);
    expect((await plat(env, ['local', 'forget-secrets'])).code).toBe(2);
    const forgot = await plat(env, ['local', 'forget-secrets', '--yes']);
    expect(forgot).toMatchObject({ code: 0 });
    expect(forgot.stderr).toMatch(
      /^Discarded the sealed secrets of .*: 0 signing keys retired .* 1 SSO client secret cleared, \d+ mails?.? text and links discarded \(resend invitations for new links\)\. Single sign-on of org_\w+ needs its client secret again/,
    );
    expect(JSON.parse((await plat(env, ['sso', 'get', '--json'])).stdout)).toMatchObject({ clientSecretSet: false });
    const served = await servePlat(env);
    expect((await fetch(`${served.url}/v2/auth/jwks`)).status).toBe(200);
    expect(existsSync(`${db}.key`)).toBe(true);
  });
});

describe('invitation links of the embedded platform', () => {
  it('point where plat serve listens by default, and open there; plat local mail says to start it', async () => {
    const env = processHome('plat-links');
    expect((await plat(env, ['users', 'invite', 'ada@example.com', '--name', 'Ada'])).code).toBe(0);
    const mail = await plat(env, ['local', 'mail', '--json']);
    expect(mail.stderr).toBe(
      'The links open once the platform is served at http://127.0.0.1:8080: run plat serve (in another terminal).\n',
    );
    const [link] = JSON.parse(mail.stdout)[0].links as string[];
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:8080\/v2\/auth\/invitations\/accept\?token=[\w-]+$/);
    // That origin is plat serve's default host and port…
    // (Lines wrapped at the terminal's width, joined again.)
    const help = (await plat(env, ['serve', '--help'])).stdout.replace(/\n +(?!-)/g, ' ');
    expect(help).toMatch(/--host <host> +interface to listen on \(default: "127\.0\.0\.1"\)/);
    expect(help).toMatch(/--port <port> +port; 0 picks a free one \(default: 8080\)/);
    // …and the page behind the link opens on a served platform (here on a free port, so as not to depend on 8080).
    const served = await servePlat(env);
    const page = await fetch(link?.replace('http://127.0.0.1:8080', served.url) as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="password"');
    // With --quiet, nothing but the mail.
    expect((await plat(env, ['local', 'mail', '--json', '-q'])).stderr).toBe('');
  });
});
