// Auth0's exports as `plat users import --from auth0` reads them. The samples follow:
// - https://auth0.com/docs/manage-users/user-migration/bulk-user-exports (the NDJSON of an export job) and
//   https://auth0.com/docs/manage-users/user-accounts/user-profiles/normalized-user-profiles (its field names);
// - https://auth0.com/docs/manage-users/user-migration/bulk-user-import-database-schema-and-examples (the bulk-import
//   schema, its custom_password_hash examples);
// - https://support.auth0.com/center/s/article/How-to-Use-the-Password-Hashes-Export-from-Auth0 (support's export).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { byEmail, fixture, rowsOf, secretsOf } from './provider-rows.js';

describe('--from auth0', () => {
  it("reads an export job's JSON lines: names, verified e-mails, blocked users suspended, metadata without secrets", async () => {
    const { rows, halt } = await rowsOf('auth0', 'auth0-export.ndjson');
    expect(halt).toBeUndefined();
    expect(byEmail(rows)).toEqual({
      items: {
        'ada@example.com': {
          email: 'ada@example.com',
          name: 'Ada Lovelace',
          emailVerified: true,
          metadata: {
            importedFrom: 'auth0',
            auth0UserId: 'auth0|5f7c8ec7c33c6c004bbafe82',
            auth0Username: 'ada',
            auth0CreatedAt: '2024-03-01T10:00:00.000Z',
            auth0LastLogin: '2025-11-20T08:30:00.000Z',
            'app.plan': 'gold',
            'app.seats': 3,
            'app.roles': '["admin"]',
            'user.theme': 'dark',
          },
        },
        // Auth0 names a database user by their e-mail: that is no name.
        'bob@example.com': {
          email: 'bob@example.com',
          status: 'suspended',
          metadata: {
            importedFrom: 'auth0',
            auth0UserId: 'auth0|5f7c8ec7c33c6c004bbafe83',
            auth0CreatedAt: '2024-04-02T10:00:00.000Z',
          },
        },
        'carol@example.com': {
          email: 'carol@example.com',
          name: 'Carol Danvers',
          emailVerified: true,
          metadata: { importedFrom: 'auth0', auth0UserId: 'google-oauth2|103547991597142817347' },
        },
      },
      // A user who signs in by SMS has no e-mail; the blank line before it is counted.
      failures: ['5 -: email: missing'],
    });
    const sent = JSON.stringify(rows);
    for (const secret of secretsOf('auth0-export.ndjson')) expect(sent).not.toContain(secret);
    expect(sent).not.toContain('guardian');
  });

  it('reads the bulk-import schema: the hashes plat verifies, in its forms; the others refused, the hash unsaid', async () => {
    const { rows } = await rowsOf('auth0', 'auth0-import.json');
    const { items, failures } = byEmail(rows);
    expect(items['velma@example.com']).toEqual({
      email: 'velma@example.com',
      name: 'Velma Dinkley',
      emailVerified: true,
      passwordHash: '$2b$10$tFHKYyY4GZJl62GS7B9KSuQQUYbgbcW2B/K4wIIQnJgWNgjxdDRy6',
      metadata: {
        importedFrom: 'auth0',
        auth0UserId: '2000',
        'app.roles': '["admin"]',
        'app.plan': 'premium',
        'user.theme': 'light',
      },
    });
    expect(items['edward@example.com']?.passwordHash).toBe(
      '$argon2id$v=19$m=65536,t=2,p=1$A+JViKxF8Snyez+sK9GSww$dSKLzBNDYkPNmyIeRJUWhDi1+JlGu2iHNuZwmx15Euc',
    );
    // PHC's own i= form; the key length is the hash's (64 bytes, as l=64 said).
    expect(items['cecil@example.com']?.passwordHash).toBe(
      '$pbkdf2-sha512$i=100000$fvV/4AHO7Hk$YllTSoBjNgL+nN8nAA61BgyLtlwwET1Yevn38l0bNUq33JeExHD+Jpt/LEhMTuLkhVxmbBGwt4pUOHNiRrwQqA',
    );
    // cost 4096 = 2^12; the salt "abc123" (utf8) and the hex hash in PHC's B64.
    expect(items['carmella@example.com']?.passwordHash).toBe(
      `$scrypt$ln=12,r=8,p=1$YWJjMTIz$${Buffer.from('95e9bc58b53920fa661690798d2e551af0d3db9c35d4e6114034b2436f9fa522', 'hex').toString('base64').replace(/=+$/, '')}`,
    );
    expect(items['dora@example.com']).toMatchObject({
      status: 'suspended',
      passwordHash: '$2b$10$gP4RMCOemG5k/rzvcege.eX5UXlAFJBCKe.3phmebM5WlZiSHj7jO',
    });
    const instead =
      'remove it from the row to import the user without a password (an invitation then lets them set one)';
    expect(failures).toEqual([
      '53 antoinette@example.com: custom_password_hash: plat does not verify md4 hashes (it verifies bcrypt, argon2, ' +
        `pbkdf2 with sha256 or sha512, and scrypt): ${instead}`,
      '61 sean@example.com: custom_password_hash: plat does not verify ldap hashes (it verifies bcrypt, argon2, ' +
        `pbkdf2 with sha256 or sha512, and scrypt): ${instead}`,
      `71 terrell@example.com: custom_password_hash: plat verifies pbkdf2 with sha256 or sha512, not md4: ${instead}`,
    ]);
    // No refusal quotes its hash; the TOTP secret of mfa_factors goes nowhere.
    const text = readFileSync(fixture('auth0-import.json'), 'utf8');
    for (const hash of text.match(/"value": "[^"]{16,}"/g) ?? []) expect(failures.join()).not.toContain(hash.slice(10));
    expect(JSON.stringify(rows)).not.toContain('2PRXZWZAYYDAWCD');
    expect(JSON.stringify(rows)).not.toContain('+15551112233');
  });

  it("reads support's password-hash export: the id Auth0 gave, e-mails from identifiers, bcrypt", async () => {
    const { rows } = await rowsOf('auth0', 'auth0-password-export.ndjson');
    const hash = '$2b$10$01VjmXVnVgo6NOI6aSzmr.y4vWVTcOqUs/YbkxE6Dt1gLss33qlrm';
    const connection = 'Username-Password-Authentication';
    expect(byEmail(rows)).toEqual({
      items: {
        'nico@example.com': {
          email: 'nico@example.com',
          emailVerified: true,
          passwordHash: hash,
          metadata: { importedFrom: 'auth0', auth0UserId: 'auth0|euclid', auth0Connection: connection },
        },
        'olga@example.com': {
          email: 'olga@example.com',
          emailVerified: true,
          passwordHash: hash,
          metadata: {
            importedFrom: 'auth0',
            auth0UserId: 'auth0|5dea9f9c82dd7c0e76e4ec94',
            auth0Connection: connection,
          },
        },
      },
      failures: [],
    });
  });

  it('refuses hashes it cannot express, saying why and never what the hash is', async () => {
    const users = [
      { email: 'a@example.com', password_hash: '5f4dcc3b5aa765d61d8327deb882cf99' },
      { email: 'b@example.com', custom_password_hash: { algorithm: 'argon2', hash: { value: '$argon2d$v=19$xyz' } } },
      {
        email: 'c@example.com',
        custom_password_hash: { algorithm: 'bcrypt', hash: { value: '$2b$10$abc' }, salt: { value: 'pepper' } },
      },
      {
        email: 'd@example.com',
        custom_password_hash: { algorithm: 'pbkdf2', hash: { value: '$pbkdf2-sha256$i=1000,l=64$c2FsdA$aGFzaA' } },
      },
      {
        email: 'e@example.com',
        custom_password_hash: {
          algorithm: 'scrypt',
          hash: { value: 'aGFzaGhhc2g=', encoding: 'base64' },
          keylen: 8,
          cost: 1000,
        },
      },
      {
        email: 'f@example.com',
        custom_password_hash: {
          algorithm: 'bcrypt',
          hash: { value: '$2b$10$abc' },
          password: { encoding: 'utf16le' },
        },
      },
    ];
    const { rows } = await rowsOf('auth0', 'users.json', { text: JSON.stringify(users) });
    expect(byEmail(rows).failures).toEqual([
      '1 a@example.com: password_hash: not bcrypt ($2a$, $2b$ or $2y$)',
      '1 b@example.com: custom_password_hash: plat verifies argon2id and argon2i ($argon2id$, $argon2i$), not this ' +
        'one: remove it from the row to import the user without a password (an invitation then lets them set one)',
      '1 c@example.com: custom_password_hash: a bcrypt hash with a salt of its own: remove it from the row to import ' +
        'the user without a password (an invitation then lets them set one)',
      '1 d@example.com: custom_password_hash: l=64 is not the length of the hash (4 bytes)',
      '1 e@example.com: custom_password_hash: cost 1000 is not a power of two',
      '1 f@example.com: custom_password_hash: password.encoding utf16le: plat verifies passwords as UTF-8 (utf8)',
    ]);
  });

  it('refuses a CSV or a JSON object by what it is, before any row, whatever its name', async () => {
    await expect(rowsOf('auth0', 'users.json', { text: 'email,name\na@example.com,A\n' })).rejects.toThrow(
      'users.json is CSV: plat reads the JSON lines of an Auth0 user export job (format "json"), a JSON array in ' +
        "its bulk-import schema, or the JSON lines of a password-hash export from Auth0's support; nothing was imported",
    );
    await expect(rowsOf('auth0', 'users.ndjson', { text: '{\n  "users": []\n}\n' })).rejects.toThrow(
      /^users\.ndjson is a JSON object: /,
    );
  });
});
