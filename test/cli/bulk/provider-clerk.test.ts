// Clerk's exports as `plat users import --from clerk` reads them. The samples follow:
// - https://clerk.com/docs/guides/development/migrating/export-from-clerk (the Dashboard's CSV, with password digests),
//   its columns as https://github.com/workos/migrate-clerk-users (README, example-input.csv) reads them;
// - support's JSON, https://github.com/workos/migrate-clerk-users/blob/main/example-input.json and
//   src/clerk-exported-user.ts; the Clerk CLI's JSON, https://github.com/clerk/migration-script src/export/clerk.ts;
// - the digests' forms: Clerk's Backend API, CreateUser, `password_hasher`
//   (https://clerk.com/docs/reference/backend-api/tag/Users#operation/CreateUser).
import { describe, expect, it } from 'vitest';
import { byEmail, rowsOf, SAMPLE_FIREBASE, secretsOf } from './provider-rows.js';

const INSTEAD = 'remove it from the row to import the user without a password (an invitation then lets them set one)';
const VERIFIED = 'bcrypt, argon2i, argon2id, pbkdf2_sha256, pbkdf2_sha256_django and scrypt_firebase';

describe('--from clerk', () => {
  it("reads the Dashboard's CSV: each hasher plat verifies in its form, the others refused; never the TOTP secret", async () => {
    const { rows, halt } = await rowsOf('clerk', 'clerk-users.csv');
    expect(halt).toBeUndefined();
    expect(byEmail(rows)).toEqual({
      items: {
        'jane@example.com': {
          email: 'jane@example.com',
          name: 'Jane Doe',
          emailVerified: true,
          passwordHash: '$2b$10$yEnX5oyi.hfLZUNexUoIau3kFmQ06Aa9V2NQxoIJkQFiSz6hz9H/e',
          metadata: {
            importedFrom: 'clerk',
            clerkUserId: 'user_2YDryYFVMM1W1plDDKz7Gzf4we6',
            clerkUsername: 'janedoe',
            phone: '+15555550100',
          },
        },
        'june@example.com': {
          email: 'june@example.com',
          name: 'June Park',
          emailVerified: true,
          passwordHash:
            '$argon2id$v=19$m=19456,t=2,p=1$iw5d1BepEJcyOeXP+c5CDQ$clU84QzrFaxaAJ5qbYXWN2qRODAmumRbCOsfb1QKQS0',
          metadata: { importedFrom: 'clerk', clerkUserId: 'user_2ZZCgLE7kJG2CRBxTZ6YUIvzS10' },
        },
        // Clerk's pbkdf2_sha256 (salt and hash in base64) in PHC's form; the address was never verified.
        'peter@example.com': {
          email: 'peter@example.com',
          name: 'Peter Quill',
          passwordHash: '$pbkdf2-sha256$i=600000$2X7J178aL+Zx3DQcBPzQ0Q$h0tWn/zBl9+LzfP+bon1ySFqJPkgpW2PSEZRAIWcKKM',
          metadata: { importedFrom: 'clerk', clerkUserId: 'user_2cWszPHuo6P2lCdnhhZbVMfbAIC' },
        },
        // Django's own form, as it is.
        'django@example.com': {
          email: 'django@example.com',
          name: 'Dj Ango',
          emailVerified: true,
          passwordHash: 'pbkdf2_sha256$870000$Zs8yZxI7ncDRBNVzj2a0wa$xYbxdGSqxR5GR5vgiDWBbUZ3bBkyi0YhYXyY34jTB8Q=',
          metadata: { importedFrom: 'clerk', clerkUserId: 'user_2cukOsyNsh0J3MCEvrgM6PkoB0I' },
        },
        'nora@example.com': {
          email: 'nora@example.com',
          name: 'Nora Nohash',
          metadata: { importedFrom: 'clerk', clerkUserId: 'user_2eG6iO9rMnL4qS8tU2wX5yZ7aB0' },
        },
      },
      failures: [
        `6 mark@example.com: password_digest: plat does not verify md5 digests (it verifies ${VERIFIED}): ${INSTEAD}`,
      ],
    });
    for (const secret of secretsOf('clerk-users.csv')) expect(JSON.stringify(rows)).not.toContain(secret);
    expect(JSON.stringify(rows)).not.toContain('5f4dcc3b5aa765d61d8327deb882cf99');
  });

  it("reads JSON exports: support's (addresses between |, metadata objects) and the CLI's (banned: suspended)", async () => {
    const { rows, firebase } = await rowsOf('clerk', 'clerk-export.json');
    expect(byEmail(rows)).toEqual({
      items: {
        'paul@example.com': {
          email: 'paul@example.com',
          name: 'Paul Atreides',
          metadata: {
            importedFrom: 'clerk',
            clerkUserId: 'user_2gQPH11rXtJguHjsx7VtUo8QGh2',
            'public.plan': 'pro',
            'public.seats': 5,
            'private.stripe_customer': 'cus_Q1w2e3',
          },
        },
        // scrypt_firebase: the hash and salt per user, the project's parameters for the run (sent as hashConfig).
        'jessica@example.com': {
          email: 'jessica@example.com',
          name: 'Jessica Atreides',
          passwordHash: {
            algorithm: 'firebase-scrypt',
            hash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
            salt: '42xEC+ixf3L2lw==',
          },
          metadata: { importedFrom: 'clerk', clerkUserId: 'user_2gRua7G8WRYBglzXE5sxRbIRkfJ' },
        },
        'leto@example.com': {
          email: 'leto@example.com',
          name: 'Leto Atreides',
          emailVerified: true,
          status: 'suspended',
          metadata: {
            importedFrom: 'clerk',
            clerkUserId: 'user_2hYFnh11sYuKivjty8WVp9RHlg3',
            'public.house': 'Atreides',
          },
        },
      },
      failures: [
        `30 vlad@example.com: password_digest: plat does not verify phpass digests (it verifies ${VERIFIED}): ${INSTEAD}`,
      ],
    });
    expect(firebase.config).toEqual(SAMPLE_FIREBASE);
    for (const secret of secretsOf('clerk-export.json')) expect(JSON.stringify(rows)).not.toContain(secret);
  });

  it('sends the URL-safe base64 of a scrypt_firebase digest as standard base64, padded', async () => {
    const users = [
      {
        id: 'user_1',
        email_addresses: 'a@example.com',
        password_digest: 'aGFzaA$-_-_$a2V5-_8$Bw$8$14',
        password_hasher: 'scrypt_firebase',
      },
    ];
    const { rows, firebase } = await rowsOf('clerk', 'users.json', { text: JSON.stringify(users) });
    expect(byEmail(rows)).toMatchObject({
      items: { 'a@example.com': { passwordHash: { algorithm: 'firebase-scrypt', hash: 'aGFzaA==', salt: '+/+/' } } },
      failures: [],
    });
    expect(firebase.config).toEqual({ ...SAMPLE_FIREBASE, signerKey: 'a2V5+/8=', saltSeparator: 'Bw==' });
  });

  it('fails a scrypt_firebase digest whose parameters differ from the first one, and malformed digests', async () => {
    const digest = (key: string) => `aGFzaA==$c2FsdA==$${key}$Bw==$8$14`;
    const users = [
      {
        id: 'user_1',
        email_addresses: 'a@example.com',
        password_digest: digest('a2V5'),
        password_hasher: 'scrypt_firebase',
      },
      {
        id: 'user_2',
        email_addresses: 'b@example.com',
        password_digest: digest('b3RoZXI='),
        password_hasher: 'scrypt_firebase',
      },
      {
        id: 'user_3',
        email_addresses: 'c@example.com',
        password_digest: 'pbkdf2_sha256$x$y',
        password_hasher: 'pbkdf2_sha256',
      },
      { id: 'user_4', email_addresses: 'd@example.com', password_digest: 'md5:5f4dcc3b5aa765d61d8327deb882cf99' },
    ];
    const { rows } = await rowsOf('clerk', 'users.json', { text: JSON.stringify(users, null, 1) });
    expect(byEmail(rows).failures).toEqual([
      '8 b@example.com: password_digest: its Firebase hash parameters differ from those of line 2: import such rows ' +
        'in a run of their own',
      '14 c@example.com: password_digest: a pbkdf2_sha256 digest is pbkdf2_sha256$ITERATIONS$SALT$HASH, salt and ' +
        'hash in base64',
      '20 d@example.com: password_digest: password_hasher is missing, and the digest is neither bcrypt nor argon2',
    ]);
  });
});
