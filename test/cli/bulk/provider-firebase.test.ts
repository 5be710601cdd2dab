// Firebase's export as `plat users import --from firebase` reads it. The sample is written as firebase-tools'
// `auth:export` writes JSON — https://github.com/firebase/firebase-tools/blob/master/src/commands/auth-export.ts (the
// object around the users) and src/accountExporter.ts (EXPORTED_JSON_KEYS) — with the account, hash and project
// parameters of https://github.com/firebase/scrypt/blob/master/README.md; the flags are those of
// https://firebase.google.com/docs/cli/auth (auth:import).
import { describe, expect, it } from 'vitest';
import { byEmail, rowsOf, SAMPLE_FIREBASE, secretsOf } from './provider-rows.js';

const user = (email: string, extra: Record<string, unknown> = {}) => ({ localId: `uid-${email}`, email, ...extra });

describe('--from firebase', () => {
  it('reads {"users": [ … ]}: Firebase scrypt hashes with their salt, disabled users suspended, claims kept', async () => {
    const { rows, halt } = await rowsOf('firebase', 'firebase-export.json', { config: SAMPLE_FIREBASE });
    expect(halt).toBeUndefined();
    expect(byEmail(rows)).toEqual({
      items: {
        'user1@test.com': {
          email: 'user1@test.com',
          name: 'Test User 1',
          passwordHash: {
            algorithm: 'firebase-scrypt',
            hash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
            salt: '42xEC+ixf3L2lw==',
          },
          metadata: {
            importedFrom: 'firebase',
            firebaseUid: 'kYi4EvWQlQTKSfnJ3dRSP6IH3ed2',
            firebaseProviders: 'password',
            firebaseCreatedAt: '1508893925000',
            firebaseLastSignedInAt: '1508893925000',
          },
        },
        'grace@example.com': {
          email: 'grace@example.com',
          name: 'Grace Hopper',
          emailVerified: true,
          metadata: {
            importedFrom: 'firebase',
            firebaseUid: 'Qx9v2mT8ZpWcRb3LhN5sYk1uJd7f',
            firebaseProviders: 'google.com',
            phone: '+15550001111',
            firebaseCreatedAt: '1704067200000',
            firebaseLastSignedInAt: '1735689600000',
            'claims.role': 'admin',
          },
        },
        'mallory@example.com': {
          email: 'mallory@example.com',
          name: 'Mallory',
          emailVerified: true,
          status: 'suspended',
          metadata: {
            importedFrom: 'firebase',
            firebaseUid: 'Zr4kP0sLqT6wVy8bNc2dXe5fGh7j',
            firebaseCreatedAt: '1704067200000',
          },
        },
      },
      failures: [],
    });
    for (const secret of secretsOf('firebase-export.json')) expect(JSON.stringify(rows)).not.toContain(secret);
  });

  it("a user with a hash needs the project's parameters: a usage error naming the flags, at that user's line", async () => {
    const error = await rowsOf('firebase', 'firebase-export.json').catch((e: Error) => e);
    expect(error).toMatchObject({
      name: 'UsageError',
      message:
        "line 2: this user has a password hash, which plat verifies with the Firebase project's hash parameters: " +
        'give them with --salt-separator, --rounds and --mem-cost, and the signer key with --hash-key-stdin, ' +
        'PLAT_FIREBASE_HASH_KEY or --hash-key, as the Firebase console shows them (Authentication, Users, ⋮, ' +
        'Password hash parameters)',
    });
    // An export whose users have no password (they signed in with Google) needs none.
    const text = JSON.stringify({ users: [user('a@example.com'), user('b@example.com', { disabled: true })] });
    const { rows } = await rowsOf('firebase', 'users.json', { text });
    expect(byEmail(rows).failures).toEqual([]);
  });

  it("finds the array among the object's other members, whatever they hold, on one line or many", async () => {
    const text =
      '{"kind": "export", "note": "a ] and a } in text", "nested": {"users": [1, "]"]},\n' +
      ` "users": [${JSON.stringify(user('a@example.com'))},\n${JSON.stringify(user('b@example.com'))}\n],` +
      ' "after": [{"x": "}"}]}\n';
    const { rows, halt } = await rowsOf('firebase', 'users.json', { text });
    expect(halt).toBeUndefined();
    expect(rows.map((r) => [r.line, r.email])).toEqual([
      [2, 'a@example.com'],
      [3, 'b@example.com'],
    ]);
    expect((await rowsOf('firebase', 'users.json', { text: '{"users": []}' })).rows).toEqual([]);
  });

  it('stops where the object cannot be read past, and refuses what Firebase does not export', async () => {
    const stops = async (text: string) => (await rowsOf('firebase', 'users.json', { text })).halt;
    expect(await stops('{\n"accounts": []}')).toEqual({ line: 2, message: 'no "users" array in the object' });
    expect(await stops('{\n"users": {}}')).toEqual({ line: 2, message: '"users" is not an array' });
    expect(await stops(`{"users": [${JSON.stringify(user('a@example.com'))}]`)).toEqual({
      line: 1,
      message: 'the JSON object is never closed',
    });
    expect(await stops('{"users": []} {}')).toEqual({ line: 1, message: 'text after the end of the JSON object' });
    // The CSV `auth:export users.csv` writes has no header; JSON lines and arrays are not Firebase's.
    const csv = 'kYi4EvWQlQTKSfnJ3dRSP6IH3ed2,user1@test.com,false,,,Test User 1\n';
    await expect(rowsOf('firebase', 'users.csv', { text: csv })).rejects.toThrow(
      'users.csv is CSV: plat reads the JSON that `firebase auth:export users.json --format=json` writes ' +
        '({"users": [ … ]}); its CSV has no header; nothing was imported',
    );
    await expect(
      rowsOf('firebase', 'users.json', { text: `${JSON.stringify(user('a@example.com'))}\n` }),
    ).rejects.toThrow(/^users\.json is JSON lines: /);
    await expect(rowsOf('firebase', 'users.json', { text: '\n \n' })).rejects.toThrow(/^users\.json is empty: /);
  });

  it('sends URL-safe base64 as standard base64, padded as Firebase writes it (the platform reads that alone)', async () => {
    const hash = 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==';
    const urlSafe = (b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const text = JSON.stringify({
      users: [
        user('a@example.com', { passwordHash: urlSafe(hash), salt: urlSafe('42xEC+ixf3L2lw==') }),
        user('b@example.com', { passwordHash: 'aGFzaA', salt: '-_-_' }),
      ],
    });
    const { rows } = await rowsOf('firebase', 'users.json', { text, config: SAMPLE_FIREBASE });
    const { items, failures } = byEmail(rows);
    expect(failures).toEqual([]);
    expect(items['a@example.com']?.passwordHash).toEqual({
      algorithm: 'firebase-scrypt',
      hash,
      salt: '42xEC+ixf3L2lw==',
    });
    expect(items['b@example.com']?.passwordHash).toEqual({
      algorithm: 'firebase-scrypt',
      hash: 'aGFzaA==',
      salt: '+/+/',
    });
  });

  it('fails a user whose hash or salt is not base64, without saying them', async () => {
    const text = JSON.stringify({ users: [user('a@example.com', { passwordHash: 'not base64!', salt: 'c2FsdA==' })] });
    const { rows } = await rowsOf('firebase', 'users.json', { text, config: SAMPLE_FIREBASE });
    expect(byEmail(rows).failures).toEqual([
      '1 a@example.com: passwordHash: the hash and the salt of a Firebase export are base64',
    ]);
  });
});
