import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { importHelpers } from '../helpers/users-import.js';
import {
  fixture,
  hashesIn,
  hashesOf,
  SAMPLE_FIREBASE,
  SAMPLE_FIREBASE_FLAGS,
  secretsOf,
} from './bulk/provider-rows.js';

// `plat users import FILE --from auth0|firebase|cognito|clerk` in-process against the embedded platform (docs/migrate.md),
// with the samples of test/fixtures/providers/ (their tests in test/cli/bulk/provider-*.test.ts cite the documentation
// each follows). The spawned runs, embedded and against `plat serve`, are in users-import-providers-process.test.ts.

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  await w.runCli(['whoami']); // the embedded platform (org_0001, owner admin@localhost)
});
afterEach(() => w.cleanup());

/** A sample copied into the world's directory (where the errors file goes), under its own name or another. */
function sample(name: string, as = name): string {
  copyFileSync(fixture(name), join(w.dir, as));
  return as;
}
const { read, errorsOf, users, batches, recording } = importHelpers(() => w);

/** Neither a hash nor a secret of the sample in what a run printed, nor in any file it wrote. */
function expectNothingOf(sampleName: string, printed: string): void {
  const files = readdirSync(w.dir)
    .filter((f) => f.includes('errors'))
    .map(read)
    .join('\n');
  for (const text of [...hashesOf(sampleName), ...secretsOf(sampleName)]) {
    expect(printed).not.toContain(text);
    expect(files).not.toContain(text);
  }
}

describe('users import --from', () => {
  it('auth0: a dry run exits as the real run does; users come with their hashes, refused ones in the errors file', async () => {
    const file = sample('auth0-import.json', 'tenant-users.json');
    const summary = (head: string) =>
      `${head}: 8 rows — 5 created, 0 updated, 0 unchanged, 3 failed; failed rows are in tenant-users.json.errors.jsonl.\n` +
      'plat: 3 rows failed: see tenant-users.json.errors.jsonl (line, e-mail, reason)\n';
    const dry = await w.runCli(['users', 'import', file, '--from', 'auth0', '--dry-run']);
    expect(dry).toMatchObject({
      code: 7,
      stdout: '',
      stderr: summary('Dry run of tenant-users.json, nothing changed'),
    });
    expect(Object.keys(await users())).toEqual(['admin@localhost']);
    const real = await w.runCli(['users', 'import', file, '--from', 'auth0']);
    expect(real).toMatchObject({ code: 7, stdout: '', stderr: summary('Imported tenant-users.json') });
    const refusal = (alg: string) =>
      `custom_password_hash: plat does not verify ${alg} hashes (it verifies bcrypt, argon2, pbkdf2 with sha256 or ` +
      'sha512, and scrypt): remove it from the row to import the user without a password (an invitation then lets ' +
      'them set one)';
    expect(errorsOf('tenant-users.json.errors.jsonl')).toEqual([
      { line: 53, email: 'antoinette@example.com', code: 'validation_error', message: refusal('md4') },
      { line: 61, email: 'sean@example.com', code: 'validation_error', message: refusal('ldap') },
      {
        line: 71,
        email: 'terrell@example.com',
        code: 'validation_error',
        message:
          'custom_password_hash: plat verifies pbkdf2 with sha256 or sha512, not md4: remove it from the row to ' +
          'import the user without a password (an invitation then lets them set one)',
      },
    ]);
    expectNothingOf('auth0-import.json', dry.raw.stderr + real.raw.stderr);
    const u = await users();
    // A user who brings a hash is active at once (docs/migrate.md, "What the users see"); a blocked one is suspended.
    expect(u['velma@example.com']).toMatchObject({
      status: 'active',
      emailVerified: true,
      name: 'Velma Dinkley',
      metadata: { importedFrom: 'auth0', auth0UserId: '2000', 'app.plan': 'premium', 'user.theme': 'light' },
    });
    expect(u['dora@example.com']).toMatchObject({ status: 'suspended' });
    for (const email of ['edward', 'cecil', 'carmella']) expect(u[`${email}@example.com`].status).toBe('active');
    // Again: what is there is unchanged.
    const again = await w.runCli(['users', 'import', file, '--from', 'auth0', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, unchanged: 5, failed: 3 });
  });

  it("auth0: an export job's JSON lines, whatever the file is called; blocked users suspended, no secret kept", async () => {
    const file = sample('auth0-export.ndjson', 'auth0docs.json');
    const r = await w.runCli(['users', 'import', file, '--from', 'auth0']);
    expect(r).toMatchObject({
      code: 7,
      stderr:
        'Imported auth0docs.json: 4 rows — 3 created, 0 updated, 0 unchanged, 1 failed; failed rows are in ' +
        'auth0docs.json.errors.jsonl.\nplat: 1 row failed: see auth0docs.json.errors.jsonl (line, e-mail, reason)\n',
    });
    expect(errorsOf('auth0docs.json.errors.jsonl')).toEqual([
      { line: 5, email: null, code: 'validation_error', message: 'email: missing' },
    ]);
    const u = await users();
    // A pending user's e-mail shows as verified once they join (their account is; the membership is not yet).
    expect(u['ada@example.com']).toMatchObject({ status: 'pending', emailVerified: false, name: 'Ada Lovelace' });
    expect(u['bob@example.com']).toMatchObject({ status: 'suspended', name: null });
    const everything = JSON.stringify(u);
    for (const secret of secretsOf('auth0-export.ndjson')) expect(everything).not.toContain(secret);
  });

  it("firebase: the project's parameters by the Firebase CLI's flags, the key on stdin, sent with the batches that need them", async () => {
    const file = sample('firebase-export.json', 'users.json');
    const before = await users();
    const missing = await w.runCli(['users', 'import', file, '--from', 'firebase']);
    expect(missing).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        "plat: line 2: this user has a password hash, which plat verifies with the Firebase project's hash " +
        'parameters: give them with --salt-separator, --rounds and --mem-cost, and the signer key with ' +
        '--hash-key-stdin, PLAT_FIREBASE_HASH_KEY or --hash-key, as the Firebase console shows them (Authentication, ' +
        'Users, ⋮, Password hash parameters)\n',
    });
    expect(await users()).toEqual(before);
    const bodies: any[] = [];
    const argv = ['users', 'import', file, '--from', 'firebase', '--hash-key-stdin', ...SAMPLE_FIREBASE_FLAGS];
    const r = await w.runCli([...argv, '--batch-size', '1'], {
      deps: recording(bodies),
      stdin: `${SAMPLE_FIREBASE.signerKey}\n`,
    });
    expect(r).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Imported users.json: 3 rows — 3 created, 0 updated, 0 unchanged, 0 failed.\n',
    });
    // Only the batch with a Firebase hash carries the parameters.
    expect(bodies.map((b) => [b.users[0].email, b.hashConfig])).toEqual([
      ['user1@test.com', SAMPLE_FIREBASE],
      ['grace@example.com', undefined],
      ['mallory@example.com', undefined],
    ]);
    expect(r.raw.stderr).not.toContain(SAMPLE_FIREBASE.signerKey);
    const u = await users();
    expect(u['user1@test.com']).toMatchObject({ status: 'active', name: 'Test User 1' });
    // What maps to what is provider-firebase.test.ts's: here, that it lands (and the claim holding a token does not).
    expect(u['grace@example.com']).toMatchObject({
      status: 'pending',
      metadata: { firebaseUid: 'Qx9v2mT8ZpWcRb3LhN5sYk1uJd7f', 'claims.role': 'admin' },
    });
    expect(Object.keys(u['grace@example.com'].metadata)).not.toContain('claims.apiToken');
    expect(u['mallory@example.com']).toMatchObject({ status: 'suspended' });
  });

  it('firebase: the signer key from PLAT_FIREBASE_HASH_KEY too; --hash-key before it; what is missing or clashes', async () => {
    const file = sample('firebase-export.json', 'users.json');
    const bodies: any[] = [];
    const argv = ['users', 'import', file, '--from', 'firebase', ...SAMPLE_FIREBASE_FLAGS, '--dry-run'];
    const env = { PLAT_FIREBASE_HASH_KEY: SAMPLE_FIREBASE.signerKey };
    expect(await w.runCli(argv, { env, deps: recording(bodies) })).toMatchObject({ code: 0, stdout: '' });
    expect(bodies[0].hashConfig).toEqual(SAMPLE_FIREBASE);
    // The flag's key is taken before the environment's.
    const other = Buffer.alloc(64, 'another project').toString('base64'); // 64 bytes, as long as the hash
    expect((await w.runCli([...argv, '--hash-key', other], { env, deps: recording(bodies) })).code).toBe(0);
    expect(bodies[1].hashConfig).toEqual({ ...SAMPLE_FIREBASE, signerKey: other });

    const refusals: [string[], { env?: Record<string, string>; stdin?: string }, number, string][] = [
      [
        [],
        {},
        2,
        'the Firebase hash parameters need the signer key too (--salt-separator, --rounds and --mem-cost, and the ' +
          'signer key with --hash-key-stdin, PLAT_FIREBASE_HASH_KEY or --hash-key, as the Firebase console shows them)',
      ],
      [
        [],
        { env: { PLAT_FIREBASE_HASH_KEY: 'not base64!' } },
        2,
        'PLAT_FIREBASE_HASH_KEY is not base64: give the base64_signer_key as the Firebase console shows it',
      ],
      [
        ['--hash-key-stdin'],
        { stdin: 'not base64!\n' },
        2,
        '--hash-key-stdin is not base64: give the base64_signer_key as the Firebase console shows it',
      ],
      [['--hash-key-stdin'], { stdin: '\n' }, 7, '--hash-key-stdin: stdin was empty'],
      [
        ['--hash-key-stdin', '--hash-key', other],
        {},
        2,
        '--hash-key and --hash-key-stdin both give the signer key: give one',
      ],
      [
        ['--hash-key-stdin', '--api-key-stdin'],
        { stdin: 'x' },
        2,
        '--hash-key-stdin and --api-key-stdin both need stdin',
      ],
    ];
    for (const [extra, opts, code, message] of refusals) {
      const r = await w.runCli(
        ['users', 'import', file, '--from', 'firebase', ...SAMPLE_FIREBASE_FLAGS, ...extra],
        opts,
      );
      expect([extra, r]).toMatchObject([extra, { code, stdout: '', stderr: `plat: ${message}\n` }]);
    }
    // Stdin holds the key or the users, not both.
    const piped = readFileSync(fixture('firebase-export.json'), 'utf8');
    const both = ['users', 'import', '-', '--from', 'firebase', '--hash-key-stdin', ...SAMPLE_FIREBASE_FLAGS];
    expect(await w.runCli(both, { stdin: piped })).toMatchObject({
      code: 2,
      stderr:
        'plat: --hash-key-stdin reads the signer key from stdin, which FILE - reads the users from: name the file, ' +
        'or put the key in PLAT_FIREBASE_HASH_KEY\n',
    });
    expect(Object.keys(await users())).toEqual(['admin@localhost']);
  });

  it('firebase: URL-safe base64 goes as standard base64, so the platform takes the hash', async () => {
    const urlSafe = (b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const exported = JSON.parse(readFileSync(fixture('firebase-export.json'), 'utf8'));
    const [user1] = exported.users;
    const standard = { hash: user1.passwordHash, salt: user1.salt };
    Object.assign(user1, { passwordHash: urlSafe(user1.passwordHash), salt: urlSafe(user1.salt) });
    writeFileSync(join(w.dir, 'users.json'), JSON.stringify({ users: [user1] }));
    const bodies: any[] = [];
    const flags = ['--hash-key', urlSafe(SAMPLE_FIREBASE.signerKey), '--salt-separator', 'Bw', '--rounds', '8'];
    const argv = ['users', 'import', 'users.json', '--from', 'firebase', ...flags, '--mem-cost', '14'];
    expect(await w.runCli(argv, { deps: recording(bodies) })).toMatchObject({
      code: 0,
      stderr: 'Imported users.json: 1 row — 1 created, 0 updated, 0 unchanged, 0 failed.\n',
    });
    expect(bodies[0].hashConfig).toEqual(SAMPLE_FIREBASE);
    expect(bodies[0].users[0].passwordHash).toEqual({ algorithm: 'firebase-scrypt', ...standard });
    expect((await users())['user1@test.com']).toMatchObject({ status: 'active' });
  });

  it('cognito: its CSV and list-users JSON, without passwords: users pending, disabled ones suspended', async () => {
    const bodies: any[] = [];
    const csv = await w.runCli(['users', 'import', sample('cognito-users.csv', 'pool.txt'), '--from', 'cognito'], {
      deps: recording(bodies),
    });
    // Sent verified; the users list says so once they have joined (through their invitation).
    expect(bodies[0].users.map((i: any) => [i.email, i.emailVerified])).toEqual([
      ['john@example.com', true],
      ['jane@example.com', undefined],
    ]);
    expect(csv).toMatchObject({
      code: 7,
      stderr:
        'Imported pool.txt: 3 rows — 2 created, 0 updated, 0 unchanged, 1 failed; failed rows are in ' +
        'pool.txt.errors.jsonl.\nplat: 1 row failed: see pool.txt.errors.jsonl (line, e-mail, reason)\n',
    });
    const listed = await w.runCli(['users', 'import', sample('cognito-list-users.json'), '--from', 'cognito']);
    expect(listed).toMatchObject({
      code: 0,
      stderr: 'Imported cognito-list-users.json: 2 rows — 2 created, 0 updated, 0 unchanged, 0 failed.\n',
    });
    const u = await users();
    expect(u['john@example.com']).toMatchObject({
      status: 'pending',
      name: 'John Doe',
      metadata: { cognitoUsername: 'johndoe', 'custom.department': 'Engineering' },
    });
    expect(u['mary@example.com']).toMatchObject({ status: 'pending', metadata: { cognitoStatus: 'CONFIRMED' } });
    expect(u['diego@example.com']).toMatchObject({ status: 'suspended' });
    expect(JSON.stringify(u)).not.toContain('NEVER_COPIED');
  });

  it('clerk: scrypt_firebase digests bring their parameters; a stopped run resumes with the same --from', async () => {
    const file = sample('clerk-export.json', 'clerk.json');
    const bodies: any[] = [];
    const r = await w.runCli(['users', 'import', file, '--from', 'clerk'], { deps: recording(bodies) });
    expect(r).toMatchObject({
      code: 7,
      stderr:
        'Imported clerk.json: 4 rows — 3 created, 0 updated, 0 unchanged, 1 failed; failed rows are in ' +
        'clerk.json.errors.jsonl.\nplat: 1 row failed: see clerk.json.errors.jsonl (line, e-mail, reason)\n',
    });
    expect(bodies[0].hashConfig).toEqual(SAMPLE_FIREBASE);
    expectNothingOf('clerk-export.json', r.raw.stderr);
    const u = await users();
    expect(u['jessica@example.com']).toMatchObject({ status: 'active' });
    expect(u['leto@example.com']).toMatchObject({ status: 'suspended', name: 'Leto Atreides' });

    // The Dashboard's CSV, stopped after its first batch (credentials refused), then resumed.
    const csv = sample('clerk-users.csv');
    const refuseSecond = batches(async (n, _request, pass) =>
      n === 2
        ? Response.json({ error: { code: 'unauthenticated', message: 'the API key was revoked' } }, { status: 401 })
        : pass(),
    );
    const argv = ['users', 'import', csv, '--from', 'clerk', '--batch-size', '2', '--concurrency', '1'];
    const stopped = await w.runCli(argv, { deps: refuseSecond });
    expect(stopped.code).toBe(3);
    expect(existsSync(join(w.dir, 'clerk-users.csv.errors.jsonl.checkpoint'))).toBe(true);
    expect(await w.runCli(['users', 'import', csv, '--resume', '--batch-size', '2'])).toMatchObject({
      code: 2,
      stderr:
        'plat: clerk-users.csv.errors.jsonl.checkpoint was written by an import with --from clerk --batch-size 2: ' +
        'resume with the same options, or delete it to start over\n',
    });
    const resumed = await w.runCli([...argv, '--resume']);
    expect(resumed).toMatchObject({
      code: 7,
      stderr:
        'Imported clerk-users.csv: 6 rows (2 of them by an earlier run) — 5 created, 0 updated, 0 unchanged, 1 ' +
        'failed; failed rows are in clerk-users.csv.errors.jsonl.\nplat: 1 row failed: see ' +
        'clerk-users.csv.errors.jsonl (line, e-mail, reason)\n',
    });
    expect(errorsOf('clerk-users.csv.errors.jsonl').map((e) => [e.line, e.email])).toEqual([[6, 'mark@example.com']]);
    expectNothingOf('clerk-users.csv', stopped.raw.stderr + resumed.raw.stderr);
  });

  it('--replace-passwords goes with --upsert, and says so in the batch', async () => {
    const file = sample('clerk-users.csv');
    expect(await w.runCli(['users', 'import', file, '--from', 'clerk', '--replace-passwords'])).toMatchObject({
      code: 2,
      stderr: 'plat: --replace-passwords replaces the passwords of users who exist: it goes with --upsert\n',
    });
    const bodies: any[] = [];
    const argv = ['users', 'import', file, '--from', 'clerk', '--upsert', '--replace-passwords', '--dry-run'];
    expect((await w.runCli(argv, { deps: recording(bodies) })).code).toBe(7);
    expect(bodies[0]).toMatchObject({ mode: 'upsert', replacePasswords: true, dryRun: true });
    expect(bodies[0].hashConfig).toBeUndefined();
  });

  it('reads stdin by its content too; failed rows listed on stderr say no hash', async () => {
    const csv = readFileSync(fixture('clerk-users.csv'), 'utf8');
    const r = await w.runCli(['users', 'import', '-', '--from', 'clerk', '--dry-run'], { stdin: csv });
    expect(r).toMatchObject({
      code: 7,
      stderr:
        'line 6 mark@example.com: password_digest: plat does not verify md5 digests (it verifies bcrypt, argon2i, ' +
        'argon2id, pbkdf2_sha256, pbkdf2_sha256_django and scrypt_firebase): remove it from the row to import the ' +
        'user without a password (an invitation then lets them set one)\n' +
        'Dry run of stdin, nothing changed: 6 rows — 5 created, 0 updated, 0 unchanged, 1 failed; failed rows are ' +
        'listed above.\nplat: 1 row failed: they are listed above\n',
    });
    expectNothingOf('clerk-users.csv', r.raw.stderr);
  });

  it('plat files with a passwordHash column: the generic path for any system whose hashes plat verifies', async () => {
    writeFileSync(
      join(w.dir, 'people.csv'),
      'email,name,passwordHash\n' +
        'ada@example.com,Ada,$2b$10$tFHKYyY4GZJl62GS7B9KSuQQUYbgbcW2B/K4wIIQnJgWNgjxdDRy6\n' +
        'bob@example.com,Bob,not-a-hash\n',
    );
    const r = await w.runCli(['users', 'import', 'people.csv']);
    expect(r.code).toBe(7);
    expect(errorsOf('people.csv.errors.jsonl')).toEqual([
      {
        line: 3,
        email: 'bob@example.com',
        code: 'validation_error',
        message:
          'passwordHash: not a hash plat verifies (bcrypt $2a$, $2b$ or $2y$; PHC $argon2id$, $argon2i$, $scrypt$, ' +
          '$pbkdf2-sha256$ or $pbkdf2-sha512$; Django pbkdf2_sha256$; sha512-crypt $6$)',
      },
    ]);
    expect((await users())['ada@example.com']).toMatchObject({ status: 'active' });
  });

  it('refuses what cannot go together, before reading anything', async () => {
    const file = sample('firebase-export.json');
    const usage: [string[], string][] = [
      [['--from', 'okta'], 'invalid --from "okta": expected one of auth0, firebase, cognito, clerk'],
      [
        ['--from', 'auth0', '--format', 'json'],
        '--from tells the layout of the file by its content: leave out --format',
      ],
      [
        ['--from', 'clerk', '--hash-key', 'a2V5'],
        "--hash-key: a Firebase project's hash parameters go with --from firebase",
      ],
      [
        ['--from', 'clerk', '--hash-key-stdin'],
        "--hash-key-stdin: a Firebase project's hash parameters go with --from firebase",
      ],
      [
        ['--from', 'firebase', '--hash-key', 'a2V5'],
        'the Firebase hash parameters need --rounds and --mem-cost too (--salt-separator, --rounds and --mem-cost, ' +
          'and the signer key with --hash-key-stdin, PLAT_FIREBASE_HASH_KEY or --hash-key, as the Firebase console ' +
          'shows them)',
      ],
      [
        ['--from', 'firebase', '--hash-key-stdin', '--rounds', '8'],
        'the Firebase hash parameters need --mem-cost too (--salt-separator, --rounds and --mem-cost, and the signer ' +
          'key with --hash-key-stdin, PLAT_FIREBASE_HASH_KEY or --hash-key, as the Firebase console shows them)',
      ],
      [
        ['--from', 'firebase', '--hash-key', 'not base64!', '--rounds', '8', '--mem-cost', '14'],
        '--hash-key is not base64: give the base64_signer_key as the Firebase console shows it',
      ],
      [
        ['--from', 'firebase', '--hash-algo', 'HMAC_SHA256', '--hash-key', 'a2V5', '--rounds', '8', '--mem-cost', '14'],
        '--hash-algo: plat verifies the hashes of Firebase\'s own scrypt, SCRYPT, the only ones "firebase auth:export" ' +
          'writes',
      ],
    ];
    for (const [argv, message] of usage) {
      expect(await w.runCli(['users', 'import', file, ...argv])).toMatchObject({
        code: 2,
        stderr: `plat: ${message}\n`,
      });
    }
    const outOfRange = await w.runCli(['users', 'import', file, '--from', 'firebase', '--rounds', '9']);
    expect(outOfRange).toMatchObject({ code: 7 });
    expect(outOfRange.stderr).toContain('expected a whole number from 1 to 8');
    expect(Object.keys(await users())).toEqual(['admin@localhost']);
  });
});

describe('the check that no hash is printed or written', () => {
  it('knows every form plat takes, whole and by its salt and hash, and the hashes and salts of JSON exports', () => {
    const hashes = {
      bcrypt2a: '$2a$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW',
      bcrypt2y: '$2y$10$QnkyJ6G0cO4PiNVUvWBmUevr8qb.MEOdJPMWTR5oRxyLBk1.kmTvi',
      argon2i: '$argon2i$v=19$m=16,t=2,p=1$c29tZXNhbHQ$Iv3/ASuw4b6H0sOQs1tuzQ',
      scrypt: '$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E',
      sha512crypt:
        '$6$rounds=5000$saltsaltsalt$qFmFH.bQmmtXzyBY0s9v7Oicd2z4XSIecDzlB5KiA2/jctKu9YterLp8wwnSq.qc.eoxqOmSuNp2xS0ktL3nh/',
      django: 'pbkdf2_sha256$870000$Zs8yZxI7ncDRBNVzj2a0wa$xYbxdGSqxR5GR5vgiDWBbUZ3bBkyi0YhYXyY34jTB8Q=',
    };
    const json = JSON.stringify({
      users: [
        ...Object.values(hashes).map((passwordHash, i) => ({ email: `u${i}@example.com`, passwordHash })),
        { email: 'f@example.com', passwordHash: 'bFNyZlYxNWNweDk1', salt: '42xEC+ixf3L2lw==' },
        {
          email: 'a@example.com',
          custom_password_hash: {
            algorithm: 'md4',
            hash: { value: 'AbuUujgF0pPPkJPSFRTpmA==', encoding: 'base64' },
            salt: { value: 'pepper-and-salt', encoding: 'utf8' },
          },
        },
      ],
    });
    const csv = `email,password_digest,password_hasher\nd@example.com,${hashes.django},pbkdf2_sha256_django\n`;
    const found = [...hashesIn(json), ...hashesIn(csv)];
    const parts = ['c29tZXNhbHQ', 'aM15713r3Xsvxbi31lqr1Q', 'saltsaltsalt', 'Zs8yZxI7ncDRBNVzj2a0wa'];
    for (const text of [
      ...Object.values(hashes),
      ...parts,
      'bFNyZlYxNWNweDk1',
      '42xEC+ixf3L2lw==',
      'AbuUujgF0pPPkJPSFRTpmA==',
      'pepper-and-salt',
    ]) {
      expect(found).toContain(text);
    }
    // Never a parameter, nor a cell after the hash.
    expect(found.filter((t) => /^[a-z]+=\d|bcrypt|pbkdf2_sha256_django$|^870000$/.test(t))).toEqual([]);
  });
});
