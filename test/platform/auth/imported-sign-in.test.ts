import { createCipheriv, pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { hashSync as argon2 } from '@node-rs/argon2';
import { hashSync as bcrypt } from '@node-rs/bcrypt';
import { encrypt as sha512crypt } from 'unixcrypt';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkPassword } from '../../../src/platform/auth/sign-in.js';
import { bootstrap } from '../../../src/platform/operations/bootstrap.js';
import { dbRows } from '../../helpers/db.js';
import { baseOf } from '../../helpers/internals.js';
import {
  AUTH_URL,
  type AuthTestPlatform,
  authorizePlatform,
  authorizeUrl,
  FormBrowser,
  formFields,
  pkce,
  signIn,
} from './helpers.js';

// Users imported with the password hashes of the system they come from (docs/migrate.md): created
// active without an invitation, signing in with their old password through the sign-in page, which replaces the
// imported hash with the platform's own. The schemes' own vectors are in imported-hashes.test.ts; the hashes here are
// made by the same libraries' hash functions (or Node's crypto) for passwords these tests choose.

/** firebase/scrypt's README: a project's parameters and one user's hash, for the password `user1password`. */
const FIREBASE = {
  config: {
    algorithm: 'firebase-scrypt' as const,
    signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
    saltSeparator: 'Bw==',
    rounds: 8,
    memCost: 14,
  },
  hash: {
    algorithm: 'firebase-scrypt' as const,
    hash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
    salt: '42xEC+ixf3L2lw==',
  },
  password: 'user1password',
};

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

/** PBKDF2-SHA256 as PHC writes it (`$pbkdf2-sha256$i=…$salt$hash`). */
function pbkdf2Phc(password: string, iterations: number): string {
  const salt = randomBytes(16);
  return `$pbkdf2-sha256$i=${iterations}$${b64(salt)}$${b64(pbkdf2Sync(password, salt, iterations, 32, 'sha256'))}`;
}

/** scrypt as PHC writes it, at N=2^10, r=8, p=1 with a 16-byte salt and a 32-byte key. */
function scryptPhc(password: string): string {
  const salt = randomBytes(16);
  return `$scrypt$ln=10,r=8,p=1$${b64(salt)}$${b64(scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 }))}`;
}

/** Django's `pbkdf2_sha256$iterations$salt$hash` (the salt as text, the hash in padded base64). */
function django(password: string, iterations: number): string {
  const salt = 'r4nd0msaltt3xt';
  return `pbkdf2_sha256$${iterations}$${salt}$${pbkdf2Sync(password, salt, iterations, 32, 'sha256').toString('base64')}`;
}

/** A Firebase hash of the README's project for another password, made as Firebase makes them. */
function firebaseHash(password: string) {
  const salt = randomBytes(12);
  const c = FIREBASE.config;
  const key = scryptSync(password, Buffer.concat([salt, Buffer.from(c.saltSeparator, 'base64')]), 32, {
    N: 2 ** c.memCost,
    r: c.rounds,
    p: 1,
  });
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  const hash = Buffer.concat([cipher.update(Buffer.from(c.signerKey, 'base64')), cipher.final()]);
  return { algorithm: 'firebase-scrypt' as const, hash: hash.toString('base64'), salt: salt.toString('base64') };
}

/** One user per scheme, each with the password they had. */
const PEOPLE = [
  { email: 'bea@acme.test', password: 'bea had bcrypt', hash: () => bcrypt('bea had bcrypt', 4) },
  {
    email: 'yann@acme.test',
    password: "yann's php",
    hash: () => bcrypt("yann's php", 4).replace(/^\$2b\$/, '$2y$'),
  },
  {
    email: 'ari@acme.test',
    password: 'ari had argon2id',
    hash: () => argon2('ari had argon2id', { algorithm: 2, memoryCost: 1024, timeCost: 2, parallelism: 1 }),
  },
  {
    email: 'ira@acme.test',
    password: 'ira had argon2i',
    hash: () => argon2('ira had argon2i', { algorithm: 1, memoryCost: 1024, timeCost: 2, parallelism: 1 }),
  },
  { email: 'pia@acme.test', password: 'pia had pbkdf2', hash: () => pbkdf2Phc('pia had pbkdf2', 1000) },
  // The very form and cost of the platform's generated passwords' hashes: imported, it is replaced all the same.
  { email: 'sol@acme.test', password: 'sol had scrypt', hash: () => scryptPhc('sol had scrypt') },
  { email: 'dan@acme.test', password: 'dan had django', hash: () => django('dan had django', 1000) },
  {
    email: 'cyd@acme.test',
    password: 'cyd had crypt',
    hash: () => sha512crypt('cyd had crypt', '$6$rounds=5000$saltysalt'),
  },
  { email: 'fay@acme.test', password: FIREBASE.password, hash: () => FIREBASE.hash },
  { email: 'fin@acme.test', password: 'fin had firebase', hash: () => firebaseHash('fin had firebase') },
];

let t: AuthTestPlatform;
beforeEach(async () => {
  t = await authorizePlatform();
});

const batch = (body: Record<string, unknown>) =>
  t.call('POST', `/organizations/${t.orgId}/users/batch`, { body: { hashConfig: FIREBASE.config, ...body } });

/** Signs in on the authorization page; whether the page sent the browser on with a code. */
async function signsIn(email: string, password: string): Promise<boolean> {
  const r = await signIn(new FormBrowser(t.fetch), authorizeUrl(AUTH_URL, pkce().challenge), email, password);
  if (r.status === 303 && r.location?.includes('code=')) return true;
  expect(r.status, r.text.slice(0, 300)).not.toBe(500);
  return false;
}

const stored = async (email: string) => (await baseOf(t.platform).stores.users.accountByEmail(email))?.passwordHash;
const raw = async (email: string) =>
  (
    await dbRows<{ password_hash: string | null }>(
      t.platform,
      'SELECT password_hash FROM accounts WHERE email = ?',
      email,
    )
  )[0]?.password_hash;

describe('users imported with their password hashes', () => {
  it('come in active without an invitation, sign in with their old password, and then carry the platform’s hash', async () => {
    const items = PEOPLE.map((p) => ({ email: p.email, name: p.email.split('@')[0], passwordHash: p.hash() }));
    const r = await batch({ users: items });
    expect(r.status).toBe(200);
    expect(r.body.summary).toEqual({ created: PEOPLE.length, updated: 0, unchanged: 0, failed: 0 });
    for (const p of PEOPLE) {
      const user = await t.call('GET', `/users/${r.body.results[PEOPLE.indexOf(p)].userId}`);
      expect(user.body).toMatchObject({ email: p.email, status: 'active' });
      expect(JSON.stringify(user.body)).not.toMatch(/password/i);
    }
    expect(await dbRows(t.platform, 'SELECT id FROM invitations')).toEqual([]);
    expect(await dbRows(t.platform, 'SELECT id FROM outbox')).toEqual([]);
    for (const p of PEOPLE) {
      expect(await signsIn(p.email, `${p.password}!`), `${p.email}, a wrong password`).toBe(false);
      expect(await stored(p.email)).not.toMatch(/^\$scrypt\$ln=17,/);
      expect(await signsIn(p.email, p.password), `${p.email}, the old password`).toBe(true);
      expect(await stored(p.email), p.email).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/);
    }
    // The platform's hash is of the same password (each of these costs 128 MiB of scrypt: two people are enough).
    for (const p of PEOPLE.slice(0, 2)) {
      expect(await signsIn(p.email, p.password), `${p.email}, again with the new hash`).toBe(true);
      expect(await signsIn(p.email, `${p.password}!`), `${p.email}, a wrong password after`).toBe(false);
    }
  });

  it('never shows a hash: not in replies, events or the audit log; a Firebase hash is sealed at rest', async () => {
    const hashes = PEOPLE.map((p) => p.hash());
    const r = await batch({ users: PEOPLE.map((p, i) => ({ email: p.email, passwordHash: hashes[i] })) });
    expect(r.status).toBe(200);
    const events = await t.call('GET', `/organizations/${t.orgId}/events`);
    const seen = JSON.stringify([r.body, events.body, await dbRows(t.platform, 'SELECT * FROM events'), t.logs]);
    for (const h of hashes) {
      const secret = typeof h === 'string' ? h.slice(-20) : h.hash.slice(0, 20);
      expect(seen).not.toContain(secret);
    }
    expect(seen).not.toContain(FIREBASE.config.signerKey.slice(0, 20));
    // The signer key is the Firebase project's secret: the column holds it sealed, never in clear.
    expect(await raw('fay@acme.test')).toMatch(/^\$firebase-scrypt\$enc:v1:/);
    const all = JSON.stringify(await dbRows(t.platform, 'SELECT password_hash FROM accounts'));
    expect(all).not.toContain(FIREBASE.config.signerKey.slice(0, 20));
    expect(all).not.toContain(FIREBASE.hash.hash.slice(0, 20));
  });

  it('fails an item whose hash is malformed or too costly to check, alone and writing nothing', async () => {
    const costly = [
      '$2b$15$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', // bcrypt cost 15 > 14
      '$argon2id$v=19$m=524288,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc', // 512 MiB
      '$argon2id$v=19$m=65536,t=11,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc', // t = 11
      `$pbkdf2-sha256$i=2000001$${b64(randomBytes(16))}$${b64(randomBytes(32))}`,
      `$scrypt$ln=19,r=8,p=1$${b64(randomBytes(16))}$${b64(randomBytes(32))}`, // 128·2^19·8 = 512 MiB
    ];
    const malformed = ['$2b$10$short', 'plain text password', '$argon2id$v=19$m=x$y$z', '$6$', 'md5$abc$def'];
    const items = [...costly, ...malformed].map((h, i) => ({ email: `u${i}@acme.test`, passwordHash: h }));
    const before = await dbRows(t.platform, 'SELECT COUNT(*) AS n FROM accounts');
    const r = await batch({ users: [...items, { email: 'ok@acme.test', passwordHash: pbkdf2Phc('fine one', 1000) }] });
    expect(r.status).toBe(200);
    expect(r.body.summary).toMatchObject({ created: 1, failed: items.length });
    for (const [i, result] of r.body.results.slice(0, items.length).entries()) {
      expect(result.error, items[i]?.passwordHash).toMatchObject({
        code: 'validation_error',
        details: [{ field: 'passwordHash' }],
      });
      const given = items[i]?.passwordHash as string;
      // A message may name a scheme ($6$, $argon2id$); never the hash's salt or digest.
      if (given.length > 16) expect(JSON.stringify(result)).not.toContain(given.slice(-12));
    }
    expect(await dbRows(t.platform, 'SELECT COUNT(*) AS n FROM accounts')).toEqual(
      (before as { n: number }[]).map((x) => ({ n: Number(x.n) + 1 })),
    );
  });

  it('without the batch’s hashConfig, a Firebase hash fails its item', async () => {
    const r = await t.call('POST', `/organizations/${t.orgId}/users/batch`, {
      body: { users: [{ email: 'fay@acme.test', passwordHash: FIREBASE.hash }] },
    });
    expect(r.body.results[0]).toMatchObject({ outcome: 'failed', error: { code: 'validation_error' } });
  });

  it('comes in suspended, or with the e-mail verified, as the item says', async () => {
    const r = await batch({
      users: [
        { email: 'sus@acme.test', passwordHash: pbkdf2Phc('was blocked there', 1000), status: 'suspended' },
        { email: 'ver@acme.test', passwordHash: pbkdf2Phc('was verified there', 1000), emailVerified: true },
        { email: 'new@acme.test', status: 'suspended' },
      ],
      invite: true,
    });
    expect(r.body.summary).toMatchObject({ created: 3, failed: 0 });
    const [sus, ver, pending] = await Promise.all(
      r.body.results.map((x: { userId: string }) => t.call('GET', `/users/${x.userId}`)),
    );
    expect(sus?.body).toMatchObject({ status: 'suspended' });
    expect(ver?.body).toMatchObject({ status: 'active', emailVerified: true });
    expect(pending?.body).toMatchObject({ status: 'suspended', emailVerified: false });
    // A suspended user is not mailed an invitation; unsuspended, they are pending (they never joined).
    expect(await dbRows(t.platform, 'SELECT id FROM outbox')).toEqual([]);
    const back = await t.call('POST', `/users/${r.body.results[2].userId}/unsuspend`);
    expect(back.body).toMatchObject({ status: 'pending' });
    const active = await t.call('POST', `/users/${r.body.results[0].userId}/unsuspend`);
    expect(active.body).toMatchObject({ status: 'active' });
    expect(await signsIn('sus@acme.test', 'was blocked there')).toBe(true);
  });

  it('a dry run reports the outcomes and writes nothing', async () => {
    const r = await batch({ users: PEOPLE.map((p) => ({ email: p.email, passwordHash: p.hash() })), dryRun: true });
    expect(r.body.summary).toMatchObject({ created: PEOPLE.length, failed: 0 });
    expect(
      await dbRows(
        t.platform,
        "SELECT id FROM accounts WHERE email LIKE '%@acme.test' AND email <> ?",
        'owner@acme.test',
      ),
    ).toEqual([]);
  });
});

describe('hashes given for users that exist', () => {
  it('a pending member without a password becomes active with it (upsert), their invitation revoked', async () => {
    const invited = await batch({ users: [{ email: 'pam@acme.test', name: 'Pam' }], invite: true });
    expect(invited.body.summary).toMatchObject({ created: 1 });
    const hash = pbkdf2Phc('pam had pbkdf2', 1000);
    const asCreate = await batch({ users: [{ email: 'pam@acme.test', name: 'Pam', passwordHash: hash }] });
    expect(asCreate.body.results[0]).toMatchObject({ outcome: 'failed', error: { code: 'conflict' } });
    const r = await batch({ users: [{ email: 'pam@acme.test', name: 'Pam', passwordHash: hash }], mode: 'upsert' });
    expect(r.body.results[0]).toMatchObject({ outcome: 'updated' });
    const user = await t.call('GET', `/users/${r.body.results[0].userId}`);
    expect(user.body.status).toBe('active');
    const invitations = await t.call('GET', `/organizations/${t.orgId}/invitations`);
    expect(invitations.body.data.map((i: { status: string }) => i.status)).toEqual(['revoked']);
    expect(await signsIn('pam@acme.test', 'pam had pbkdf2')).toBe(true);
    // Again: nothing new.
    const again = await batch({ users: [{ email: 'pam@acme.test', passwordHash: hash }], mode: 'upsert' });
    expect(again.body.results[0]).toMatchObject({ outcome: 'unchanged' });
  });

  it('a member with a password keeps it unless the batch says replacePasswords', async () => {
    const userId = await t.addUser({ email: 'max@acme.test', password: 'max chose this one here' });
    const hash = pbkdf2Phc('max had this before', 1000);
    const kept = await batch({ users: [{ email: 'max@acme.test', passwordHash: hash }], mode: 'upsert' });
    expect(kept.body.results[0]).toMatchObject({ outcome: 'unchanged', userId });
    expect(await signsIn('max@acme.test', 'max had this before')).toBe(false);
    const replaced = await batch({
      users: [{ email: 'max@acme.test', passwordHash: hash }],
      mode: 'upsert',
      replacePasswords: true,
    });
    expect(replaced.body.results[0]).toMatchObject({ outcome: 'updated', userId });
    expect(await signsIn('max@acme.test', 'max chose this one here')).toBe(false);
    expect(await signsIn('max@acme.test', 'max had this before')).toBe(true);
  });

  it('an account of other organizations keeps its own password: it joins pending, and replacing it fails 409', async () => {
    const other = await bootstrap(baseOf(t.platform), { orgName: 'Other', email: 'boss@other.test' });
    await t.addUser({ email: 'oli@acme.test', password: 'oli password of other org', orgId: other.organizationId });
    const hash = pbkdf2Phc('oli had this elsewhere', 1000);
    const r = await batch({ users: [{ email: 'oli@acme.test', passwordHash: hash }] });
    expect(r.body.results[0]).toMatchObject({ outcome: 'created' });
    const user = await t.call('GET', `/users/${r.body.results[0].userId}`);
    expect(user.body.status).toBe('pending');
    expect(await signsIn('oli@acme.test', 'oli had this elsewhere')).toBe(false);
    const replace = await batch({
      users: [{ email: 'oli@acme.test', passwordHash: hash }],
      mode: 'upsert',
      replacePasswords: true,
    });
    expect(replace.body.results[0]).toMatchObject({ outcome: 'failed', error: { code: 'conflict' } });
    expect(await signsIn('oli@acme.test', 'oli password of other org')).toBe(true);
  });

  it('upsert suspends a member whose item says suspended, as suspending does', async () => {
    const userId = await t.addUser({ email: 'sam@acme.test', password: 'sam is active for now' });
    const r = await batch({ users: [{ email: 'sam@acme.test', status: 'suspended' }], mode: 'upsert' });
    expect(r.body.results[0]).toMatchObject({ outcome: 'updated', userId });
    expect((await t.call('GET', `/users/${userId}`)).body.status).toBe('suspended');
    const again = await batch({ users: [{ email: 'sam@acme.test', status: 'suspended' }], mode: 'upsert' });
    expect(again.body.results[0]).toMatchObject({ outcome: 'unchanged' });
  });
});

describe('the key the Firebase hashes are sealed with, lost', () => {
  it('plat local forget-secrets clears those hashes, and nothing else of the accounts', async () => {
    await batch({
      users: [
        { email: 'fay@acme.test', passwordHash: FIREBASE.hash },
        { email: 'pia@acme.test', passwordHash: pbkdf2Phc('pia had pbkdf2', 1000) },
      ],
    });
    const forgotten = await t.platform.admin.forgetSecrets();
    expect(forgotten.passwords).toBe(1);
    expect(await raw('fay@acme.test')).toBeNull();
    expect(await signsIn('pia@acme.test', 'pia had pbkdf2')).toBe(true);
  });
});

describe('an imported password is trusted by the importing organization alone', () => {
  /** Organization A's admin imports `ceo@victim.test` with a password of their choosing; B is another organization. */
  async function planted() {
    const hash = pbkdf2Phc('a password admin A chose', 1000);
    const r = await batch({ users: [{ email: 'ceo@victim.test', passwordHash: hash, emailVerified: true }] });
    expect(r.body.summary).toMatchObject({ created: 1 });
    const b = await bootstrap(baseOf(t.platform), { orgName: 'Victim', email: 'owner@victim.test' });
    return { userId: r.body.results[0].userId as string, b };
  }

  it("another organization's invitation asks the person to choose a password, which replaces the imported one", async () => {
    const { userId, b } = await planted();
    const invited = await t.call('POST', `/organizations/${b.organizationId}/users`, {
      body: { email: 'ceo@victim.test' },
      key: b.apiKey,
    });
    expect(invited.status).toBe(201);
    const link = (await baseOf(t.platform).stores.outbox.list({ to: 'ceo@victim.test' })).at(-1)?.links[0] as string;
    const browser = new FormBrowser(t.fetch);
    const page = await browser.get(link);
    expect(page.text).toContain('Choose a password');
    const accepted = await browser.post(`${new URL(link).origin}/v2/auth/invitations/accept`, {
      ...formFields(page.text),
      name: 'The CEO',
      password: 'the ceo chose this herself',
      confirm: 'the ceo chose this herself',
    });
    expect(accepted.status, accepted.text.slice(0, 300)).toBe(200);
    // A member of two organizations now: the sign-in page would ask which, so the password is checked as it does.
    const check = (password: string) => checkPassword(baseOf(t.platform), 'ceo@victim.test', password, null);
    expect(await check('a password admin A chose')).toMatchObject({ ok: false });
    expect(await check('the ceo chose this herself')).toMatchObject({ ok: true, userId });
    expect((await baseOf(t.platform).stores.users.accountById(userId))?.passwordImportedBy).toBeNull();
  });

  it("another organization's SCIM, on its verified domain, discards the imported password", async () => {
    const { userId, b } = await planted();
    await t.platform.admin.verifyDomain(b.organizationId, 'victim.test');
    const made = await t.call('POST', `/organizations/${b.organizationId}/scim/tokens`, {
      body: { name: 'Okta' },
      key: b.apiKey,
    });
    const user = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'ceo@victim.test',
      emails: [{ primary: true, value: 'ceo@victim.test' }],
      active: true,
    };
    const r = await t.call('POST', `/organizations/${b.organizationId}/scim/Users`, {
      key: null,
      body: user,
      headers: { authorization: `Bearer ${made.body.token}`, 'content-type': 'application/scim+json' },
    });
    expect(r.status).toBe(201);
    expect(r.body.id).toBe(userId);
    expect(await signsIn('ceo@victim.test', 'a password admin A chose')).toBe(false);
    expect(await baseOf(t.platform).stores.users.accountById(userId)).toMatchObject({
      passwordHash: null,
      passwordImportedBy: null,
    });
  });

  it('the importing organization’s own invitations and sign-ins keep it (rehashed, still marked as imported)', async () => {
    const { userId } = await planted();
    expect(await signsIn('ceo@victim.test', 'a password admin A chose')).toBe(true);
    const account = await baseOf(t.platform).stores.users.accountById(userId);
    expect(account?.passwordHash).toMatch(/^\$scrypt\$ln=17,/);
    expect(account?.passwordImportedBy).toBe(t.orgId);
  });
});

describe('one event per user, and nothing of a failed item', () => {
  it('an item that creates and suspends, or changes and suspends, writes one event', async () => {
    const userId = await t.addUser({ email: 'eve@acme.test', password: 'eve is active for now' });
    const before = await dbRows<{ n: number }>(t.platform, 'SELECT COUNT(*) AS n FROM events');
    const r = await batch({
      users: [
        { email: 'new1@acme.test', passwordHash: pbkdf2Phc('blocked elsewhere', 1000), status: 'suspended' },
        { email: 'new2@acme.test', status: 'suspended' },
        { email: 'eve@acme.test', name: 'Eve', status: 'suspended' },
      ],
      mode: 'upsert',
    });
    expect(r.body.summary).toMatchObject({ created: 2, updated: 1, failed: 0 });
    const events = await dbRows<{ type: string; target_id: string; data: string }>(
      t.platform,
      'SELECT type, target_id, data FROM events ORDER BY created_at, id',
    );
    const added = events.slice(Number(before[0]?.n));
    expect(added.map((e) => e.type).sort()).toEqual(['user.invited', 'user.provisioned', 'user.updated']);
    const eve = added.find((e) => e.target_id === userId);
    expect(JSON.parse(eve?.data as string)).toMatchObject({
      fields: ['name', 'status'],
      status: { from: 'active', to: 'suspended' },
    });
    for (const e of added.filter((x) => x.target_id !== userId)) {
      expect(JSON.parse(e.data)).toMatchObject({ status: 'suspended' });
    }
  });

  it('a failed item writes no account, membership, invitation or event', async () => {
    const tables = ['accounts', 'org_users', 'invitations', 'events', 'outbox'];
    const counts = async () =>
      Promise.all(
        tables.map(async (x) =>
          Number((await dbRows<{ n: number }>(t.platform, `SELECT COUNT(*) AS n FROM ${x}`))[0]?.n),
        ),
      );
    const before = await counts();
    const r = await batch({
      users: [
        { email: 'x1@acme.test', passwordHash: '$2b$15$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' },
        { email: 'x2@acme.test', passwordHash: 'not a hash at all' },
      ],
      invite: true,
    });
    expect(r.body.summary).toMatchObject({ failed: 2 });
    expect(await counts()).toEqual(before);
  });
});

describe('a sign-in’s rehash', () => {
  it('does not replace a password that changed meanwhile', async () => {
    const r = await batch({ users: [{ email: 'ray@acme.test', passwordHash: pbkdf2Phc('ray had pbkdf2', 1000) }] });
    const userId = r.body.results[0].userId as string;
    const users = baseOf(t.platform).stores.users;
    const imported = (await users.accountById(userId))?.passwordHash as string;
    await t.setPassword(userId, 'ray set a new one meanwhile');
    const changed = (await users.accountById(userId))?.passwordHash;
    expect(await users.rehashPassword(userId, imported, '$scrypt$stale', '2026-01-02T00:00:00.000Z')).toBe(false);
    expect((await users.accountById(userId))?.passwordHash).toBe(changed);
    expect(await signsIn('ray@acme.test', 'ray set a new one meanwhile')).toBe(true);
  });
});
