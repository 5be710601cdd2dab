import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newRecoveryCodes } from '../../src/platform/auth/second-factor.js';
import { signingKeys } from '../../src/platform/auth/signing-keys.js';
import { createPlatform, type Platform } from '../../src/platform/index.js';
import { internalsOf } from '../../src/platform/internals.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { type KeyRecord, parseSecretKey, SecretKeyError, secretBox } from '../../src/platform/store/secret-box.js';
import { type DocumentServer, documentServer, oidcIssuer } from '../helpers/idp-documents.js';
import { baseOf } from '../helpers/internals.js';
import { givenTotpFactor } from '../helpers/mfa.js';
import { send } from '../helpers/platform.js';
import { startProcess } from '../helpers/spawn.js';

const SECRET = 'oidc-client-secret-that-must-not-be-on-disk';
let OIDC: Record<string, unknown>;
let idp: DocumentServer;
beforeAll(async () => {
  idp = await documentServer();
  OIDC = {
    protocol: 'oidc',
    provider: 'custom-oidc',
    issuer: oidcIssuer(idp),
    clientId: 'plat-acme',
    clientSecret: SECRET,
    attributeMapping: { email: 'email' },
  };
});
afterAll(() => idp.close());

/** A key record of its own, as a database's `meta` would keep it. */
function memoryRecord(): KeyRecord {
  let id: string | undefined;
  return {
    read: () => id,
    write: (v) => {
      id = v;
    },
  };
}

/** The key id a database file records. */
function keyIdOf(db: string): string {
  const raw = new Database(db, { readonly: true });
  try {
    return raw.prepare("SELECT value FROM meta WHERE key = 'secret_key_id'").pluck().get() as string;
  } finally {
    raw.close();
  }
}

const dirs: string[] = [];
const open: Platform[] = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plat-secrets-'));
  dirs.push(dir);
  return dir;
}
async function platformAt(db: string, secretKey?: string): Promise<Platform> {
  const p = await createPlatform({ db, secretKey, logger: () => {}, limits: { enabled: false } });
  open.push(p);
  return p;
}

/** Every byte SQLite keeps of a database: the file, its write-ahead log and its shared memory. */
function onDisk(db: string): Buffer {
  return Buffer.concat([db, `${db}-wal`, `${db}-shm`].filter(existsSync).map((f) => readFileSync(f)));
}

/** A platform on a file with an OIDC configuration saved through the API, and a signing key made. */
async function configured(db: string, secretKey?: string) {
  const p = await platformAt(db, secretKey);
  const boot = await bootstrap(baseOf(p), { orgName: 'Acme', email: 'owner@acme.test' });
  const r = await send(p.fetch, 'http://plat.test', boot.apiKey, 'PUT', `/organizations/${boot.organizationId}/sso`, {
    body: OIDC,
  });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ clientSecretSet: true });
  await signingKeys(baseOf(p));
  return { p, orgId: boot.organizationId };
}

describe('secrets at rest', () => {
  it('keeps the SSO client secret and the signing keys sealed in the database, readable by the platform', async () => {
    const dir = tempDir();
    const db = join(dir, 'local.db');
    const { p, orgId } = await configured(db);
    const raw = new Database(db, { readonly: true });
    const stored = raw.prepare('SELECT client_secret FROM sso_configs').pluck().get() as string;
    const privateJwk = raw.prepare('SELECT private_jwk FROM signing_keys').pluck().get() as string;
    raw.close();
    expect(stored).toMatch(/^enc:v1:[\w-]{8}:[\w-]+:[\w-]+$/);
    expect(privateJwk).toMatch(/^enc:v1:/);
    expect(onDisk(db).includes(SECRET)).toBe(false);
    expect(onDisk(db).includes('"d":')).toBe(false);
    expect(await baseOf(p).stores.sso.clientSecret(orgId)).toBe(SECRET);
    expect((await signingKeys(baseOf(p), true))[0]?.privateKey.asymmetricKeyType).toBe('ec');
    // The key lives beside the database, readable by its owner only; another process opens with it.
    expect(statSync(`${db}.key`).mode & 0o777).toBe(0o600);
    expect(await baseOf(await platformAt(db)).stores.sso.clientSecret(orgId)).toBe(SECRET);
  });

  it("keeps an invitation's link sealed: not in the file, its WAL or its SHM, yet in the mailbox and working", async () => {
    const dir = tempDir();
    const db = join(dir, 'local.db');
    const p = await platformAt(db);
    const boot = await bootstrap(baseOf(p), { orgName: 'Acme', email: 'owner@acme.test' });
    const invited = await send(
      p.fetch,
      'http://plat.test',
      boot.apiKey,
      'POST',
      `/organizations/${boot.organizationId}/users`,
      {
        body: { email: 'ada@example.com', role: 'admin' },
      },
    );
    expect(invited.status).toBe(201);
    const [mail] = await p.admin.mailbox({ to: 'ada@example.com' });
    const link = mail?.links[0] as string;
    const token = new URL(link).searchParams.get('token') ?? link.split('/').at(-1) ?? '';
    expect(token.length).toBeGreaterThan(20);
    expect(mail?.text).toContain(link);
    // Neither the token nor the link, in the database's every byte.
    const bytes = onDisk(db);
    expect(bytes.includes(token)).toBe(false);
    expect(bytes.includes(link)).toBe(false);
    const raw = new Database(db, { readonly: true });
    const stored = raw.prepare('SELECT to_addr, subject, text, links FROM outbox').get() as Record<string, string>;
    raw.close();
    expect(stored).toMatchObject({ to_addr: 'ada@example.com', text: expect.stringMatching(/^enc:v1:/) });
    expect(stored.links).toMatch(/^enc:v1:/);
    // The link still opens the invitation page.
    const page = await p.fetch(new Request(link.replace(/^https?:\/\/[^/]+/, 'http://plat.test')));
    expect(page.status).toBe(200);

    // The key lost: forget-secrets leaves the mail saying so, and gives it up rather than send it empty.
    for (const q of open.splice(0)) q.close();
    rmSync(`${db}.key`);
    const after = await platformAt(db);
    await expect(after.admin.mailbox({})).rejects.toThrow(SecretKeyError);
    expect(await after.admin.forgetSecrets()).toMatchObject({ mails: 1 });
    const [forgotten] = await after.admin.mailbox({ delivery: true });
    expect(forgotten).toMatchObject({ to: 'ada@example.com', links: [], delivery: { status: 'failed' } });
    expect(forgotten?.text).toMatch(/lost/);
  });

  it('seals the mails an earlier release kept in clear when it upgrades the database, leaving none of their bytes', async () => {
    const dir = tempDir();
    const db = join(dir, 'local.db');
    const fixture = new URL('../fixtures/upgrade/0.2.0/', import.meta.url);
    for (const file of ['local.db', 'local.db.key']) copyFileSync(new URL(file, fixture), join(dir, file));
    // The release's three mails, and two hundred more as it wrote them (its schema), some since deleted: pages split,
    // rows moved and freed, as in a database that has lived.
    const before = new Database(db);
    const insert = before.prepare(
      "INSERT INTO outbox (id, org_id, to_addr, subject, text, links, created_at) VALUES (?, NULL, ?, 'Invitation', ?, ?, '2026-01-01T00:00:00.000Z')",
    );
    for (let i = 0; i < 200; i++) {
      const link = `http://127.0.0.1:8080/v2/auth/invitations/accept?token=${randomBytes(32).toString('base64url')}`;
      insert.run(
        `mail_older${String(i).padStart(15, '0')}`,
        `user${i}@example.com`,
        `Accept: ${link}\n`,
        JSON.stringify([link]),
      );
    }
    before.prepare("DELETE FROM outbox WHERE id LIKE 'mail_older%' AND CAST(substr(id, 11) AS INTEGER) % 3 = 0").run();
    const mails = before.prepare('SELECT id, links FROM outbox ORDER BY id').all() as { id: string; links: string }[];
    before.close();
    const tokens = mails.map((m) => new URL(JSON.parse(m.links)[0]).searchParams.get('token') as string);
    expect(tokens.length).toBeGreaterThan(130);
    for (const token of tokens) expect(onDisk(db).includes(token)).toBe(true);

    const p = await platformAt(db);
    const opened = await p.admin.mailbox({});
    expect(opened).toHaveLength(mails.length);
    expect(opened.map((m) => m.links[0]).sort()).toEqual(mails.map((m) => JSON.parse(m.links)[0]).sort());
    for (const q of open.splice(0)) await q.close();
    const bytes = onDisk(db);
    for (const token of tokens) expect(bytes.includes(token), token).toBe(false);
  });

  it('upgrades a database whose key is lost: its mails stay as they were until forget-secrets discards them', async () => {
    const dir = tempDir();
    const db = join(dir, 'local.db');
    copyFileSync(new URL('../fixtures/upgrade/0.2.0/local.db', import.meta.url), db);
    // It records a key (it has sealed something once), whose file is gone.
    const raw = new Database(db);
    raw.prepare("INSERT INTO meta (key, value) VALUES ('secret_key_id', 'k_lost00')").run();
    raw.close();
    const p = await platformAt(db);
    expect(() => internalsOf(p).checkSecretKey()).toThrow(SecretKeyError);
    // Commands still work (the key is for the sealed secrets only), the mailbox included.
    expect(await p.admin.mailbox({})).toHaveLength(3);
    expect(await p.admin.forgetSecrets()).toMatchObject({ mails: 3 });
    const mailbox = await p.admin.mailbox({});
    expect(mailbox.every((m) => m.links.length === 0 && /lost/.test(m.text))).toBe(true);
  });

  it('takes the key from PLAT_SECRET_KEY instead of a file, and says plainly when the key is another', async () => {
    const dir = tempDir();
    const db = join(dir, 'local.db');
    const key = randomBytes(32).toString('base64');
    const { orgId } = await configured(db, key);
    expect(existsSync(`${db}.key`)).toBe(false);
    expect(await baseOf(await platformAt(db, key)).stores.sso.clientSecret(orgId)).toBe(SECRET);
    const other = await platformAt(db, randomBytes(32).toString('hex'));
    await expect(baseOf(other).stores.sso.clientSecret(orgId)).rejects.toThrow(SecretKeyError);
    await expect(baseOf(other).stores.sso.clientSecret(orgId)).rejects.toThrow(
      /^a secret in the database was sealed with key [\w-]{8}, but the key in use \(PLAT_SECRET_KEY\) is [\w-]{8}: restore the key the database was written with/,
    );
  });

  it('refuses a PLAT_SECRET_KEY that is not 32 bytes, without echoing it', () => {
    for (const bad of [
      'short',
      'x'.repeat(64),
      randomBytes(16).toString('base64'),
      `${randomBytes(32).toString('hex')}0`,
    ]) {
      expect(() => parseSecretKey(bad, 'PLAT_SECRET_KEY')).toThrow(SecretKeyError);
      try {
        parseSecretKey(bad, 'PLAT_SECRET_KEY');
      } catch (err) {
        expect((err as Error).message).toBe(
          'PLAT_SECRET_KEY must be 32 random bytes in base64 or hex (make one with: openssl rand -base64 32)',
        );
      }
    }
    const key = randomBytes(32);
    for (const text of [
      key.toString('hex'),
      key.toString('base64'),
      key.toString('base64url'),
      ` ${key.toString('hex')}\n`,
    ]) {
      expect(parseSecretKey(text, 'PLAT_SECRET_KEY').equals(key)).toBe(true);
    }
  });

  it('binds each sealed value to its row: moved to another row, it does not open', () => {
    const box = secretBox({ kind: 'memory' }, memoryRecord());
    const sealed = box.seal('s3cret', 'sso_configs.client_secret:org_A');
    expect(box.open(sealed, 'sso_configs.client_secret:org_A')).toBe('s3cret');
    expect(() => box.open(sealed, 'sso_configs.client_secret:org_B')).toThrow(SecretKeyError);
    expect(box.seal('s3cret', 'x')).not.toBe(box.seal('s3cret', 'x'));
  });

  it('never makes a new key for a database whose key file is gone, and says how to recover', async () => {
    const dir = tempDir();
    const db = join(dir, 'local.db');
    const { orgId } = await configured(db);
    for (const p of open.splice(0)) p.close();
    rmSync(`${db}.key`);
    const p = await platformAt(db);
    const message =
      `the secret key file ${db}.key is missing, but the database holds secrets sealed with its key (` +
      `${keyIdOf(db)}): restore the key the database was written with (the file <database>.key from your backup, or ` +
      'PLAT_SECRET_KEY), or discard the sealed secrets with: plat local forget-secrets';
    expect(() => internalsOf(p).checkSecretKey()).toThrow(message);
    await expect(baseOf(p).stores.sso.clientSecret(orgId)).rejects.toThrow(message);
    await expect(signingKeys(baseOf(p), true)).rejects.toThrow(message);
    expect(existsSync(`${db}.key`)).toBe(false);
    // The way out: the sealed secrets go, a new key is made, and tokens are signed again (with a new signing key).
    expect(await p.admin.forgetSecrets()).toEqual({
      signingKeys: 1,
      ssoClientSecrets: [orgId],
      mails: 0,
      passwords: 0,
      webhooks: 0,
      authenticatorApps: 0,
    });
    expect(await baseOf(p).stores.sso.clientSecret(orgId)).toBeNull();
    expect(await baseOf(p).stores.sso.get(orgId)).toMatchObject({ clientSecretSet: false });
    expect(await signingKeys(baseOf(p), true)).toHaveLength(1);
    expect(existsSync(`${db}.key`)).toBe(true);
    expect(() => internalsOf(p).checkSecretKey()).not.toThrow();
  });

  it('keeps webhook secrets sealed; forget-secrets discards them, disabling the endpoints until rotated', async () => {
    const dir = tempDir();
    const db = join(dir, 'local.db');
    const p = await platformAt(db);
    const boot = await bootstrap(baseOf(p), { orgName: 'Acme', email: 'owner@acme.test' });
    const call = (m: string, path: string, body?: unknown) =>
      send(p.fetch, 'http://plat.test', boot.apiKey, m, path, { body });
    const created = await call('POST', `/organizations/${boot.organizationId}/webhooks`, {
      url: 'https://hooks.example.test/plat',
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    const rotated = await call('POST', `/webhooks/${created.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const raw = new Database(db, { readonly: true });
    const stored = raw.prepare('SELECT secret, previous_secret FROM webhooks').get() as Record<string, string>;
    raw.close();
    expect(stored.secret).toMatch(/^enc:v1:/);
    expect(stored.previous_secret).toMatch(/^enc:v1:/);
    for (const s of [secret, rotated.body.secret as string]) {
      expect(onDisk(db).includes(s)).toBe(false);
      expect(onDisk(db).includes(s.slice('whsec_'.length))).toBe(false);
    }
    // The key is lost: the secrets go, and the endpoint is disabled until a rotation gives it a new one.
    for (const q of open.splice(0)) await q.close();
    rmSync(`${db}.key`);
    const after = await platformAt(db);
    expect(await after.admin.forgetSecrets()).toMatchObject({ webhooks: 1, authenticatorApps: 0 });
    const again = (m: string, path: string, body?: unknown) =>
      send(after.fetch, 'http://plat.test', boot.apiKey, m, path, { body });
    const disabled = await again('GET', `/webhooks/${created.body.id}`);
    expect(disabled.body).toMatchObject({ enabled: false, previousSecretExpiresAt: null });
    expect(disabled.body.disabledReason).toMatch(/lost/);
    expect((await again('PATCH', `/webhooks/${created.body.id}`, { enabled: true })).status).toBe(409);
    const fresh = await again('POST', `/webhooks/${created.body.id}/rotate-secret`);
    expect(fresh.body).toMatchObject({ previousSecretExpiresAt: null, secret: expect.stringMatching(/^whsec_/) });
    expect((await again('PATCH', `/webhooks/${created.body.id}`, { enabled: true })).body).toMatchObject({
      enabled: true,
      disabledReason: null,
    });
  });

  it('keeps TOTP secrets sealed; forget-secrets removes those factors and the recovery codes left alone', async () => {
    const dir = tempDir();
    const db = join(dir, 'local.db');
    const p = await platformAt(db);
    const boot = await bootstrap(baseOf(p), { orgName: 'Acme', email: 'owner@acme.test' });
    const { factorId, secret } = await givenTotpFactor(p, boot.userId);
    await baseOf(p).tx((ctx) => newRecoveryCodes(ctx, boot.userId));
    const raw = new Database(db, { readonly: true });
    const stored = raw.prepare('SELECT secret FROM mfa_factors WHERE id = ?').get(factorId) as { secret: string };
    raw.close();
    expect(stored.secret).toMatch(/^enc:v1:/);
    expect(onDisk(db).includes(secret)).toBe(false);
    for (const q of open.splice(0)) await q.close();
    rmSync(`${db}.key`);
    const after = await platformAt(db);
    expect(await after.admin.forgetSecrets()).toMatchObject({ authenticatorApps: 1 });
    expect(await baseOf(after).stores.mfa.list(boot.userId)).toEqual([]);
  });

  it('seals nothing more with another key than the one the database records', async () => {
    const dir = tempDir();
    const db = join(dir, 'local.db');
    const key = randomBytes(32).toString('base64');
    const { orgId } = await configured(db, key);
    const other = await platformAt(db, randomBytes(32).toString('base64'));
    expect(() => internalsOf(other).checkSecretKey()).toThrow(SecretKeyError);
    const r = await send(other.fetch, 'http://plat.test', null, 'GET', '/auth/jwks');
    expect(r.status).toBe(500);
    expect(JSON.stringify(r.body)).not.toContain('sealed');
    const config = (await baseOf(other).stores.sso.get(orgId)) as any;
    await expect(baseOf(other).stores.sso.put({ ...config, clientSecret: 'x' })).rejects.toThrow(
      /^the database's secrets are sealed with key [\w-]{8}, but the key in use \(PLAT_SECRET_KEY\) is [\w-]{8}: /,
    );
    expect(await baseOf(await platformAt(db, key)).stores.sso.clientSecret(orgId)).toBe(SECRET);
  });

  it('gives every process opening a new database at once the one key file one of them made', async () => {
    const dir = tempDir();
    const path = join(dir, 'db.key');
    const box = fileURLToPath(new URL('../../dist/platform/store/secret-box.js', import.meta.url));
    const script = `import { secretBox } from ${JSON.stringify(box)};
      let id; const b = secretBox({ kind: 'file', path: process.argv[1] }, { read: () => undefined, write: (x) => { id = x; } });
      const sealed = b.seal('v', 'c'); process.stdout.write(JSON.stringify({ id, sealed }));`;
    const runs = await Promise.all(
      Array.from(
        { length: 6 },
        () => startProcess(process.execPath, ['--input-type=module', '-e', script, path], {}).done,
      ),
    );
    const ids = runs.map((r) => JSON.parse(r.stdout).id);
    expect(new Set(ids).size).toBe(1);
    const mine = secretBox({ kind: 'file', path }, memoryRecord());
    for (const r of runs) expect(mine.open(JSON.parse(r.stdout).sealed, 'c')).toBe('v');
    expect(readFileSync(path, 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(readdirSync(dir)).toEqual(['db.key']);
  });
});
