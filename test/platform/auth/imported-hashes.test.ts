import { scryptSync } from 'node:crypto';
import { encrypt as sha512crypt } from 'unixcrypt';
import { describe, expect, it } from 'vitest';
import type { HashConfig, ImportedHash } from '../../../src/contract/users.js';
import { acceptImportedHash, verifyImportedHash } from '../../../src/platform/auth/imported-hashes.js';
import {
  GENERATED_PASSWORD_COST,
  hashPassword,
  needsRehash,
  verifyPassword,
} from '../../../src/platform/auth/passwords.js';

// Password hashes imported from other systems (docs/migrate.md), checked against each scheme's published vectors: the
// source of each is named beside it. Every vector is verified through verifyPassword, as sign-in does, in the form
// acceptImportedHash stores it in.

/** The stored form of a hash that must be accepted. */
function stored(given: ImportedHash, config?: HashConfig): string {
  const r = acceptImportedHash(given, config);
  if (!r.ok) throw new Error(`refused: ${r.message}`);
  return r.stored;
}

/** The right password matches, a wrong one does not, and the hash is replaced at the first sign-in. */
async function vector(hash: string, password: string, wrong: string): Promise<void> {
  const s = stored(hash);
  expect(await verifyPassword(password, s), hash).toBe(true);
  expect(await verifyPassword(wrong, s), hash).toBe(false);
  expect(needsRehash(s, true)).toBe(true);
}

/** Refused for `reason`, with a message that names the problem and repeats neither the salt nor the hash. */
function refused(given: string, reason: 'malformed' | 'too_costly'): void {
  const r = acceptImportedHash(given, undefined);
  expect(r, given).toMatchObject({ ok: false, reason });
  const message = r.ok ? '' : r.message;
  expect(message.length).toBeGreaterThan(10);
  for (const part of given
    .split('$')
    .slice(-2)
    .filter((p) => p.length >= 5))
    expect(message).not.toContain(part);
}

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
const phc = (id: string, params: string, salt: string, hash: Buffer) =>
  `$${id}$${params}$${b64(Buffer.from(salt))}$${b64(hash)}`;

describe('bcrypt', () => {
  // OpenBSD's and Openwall's crypt_blowfish test vectors (crypt_blowfish's wrapper.c), as PHP's and Ruby's bcrypt test
  // suites carry them; "chars after 72 are ignored" is bcrypt's truncation at 72 bytes.
  it("verifies crypt_blowfish's $2a$ vectors, the empty password and truncation at 72 bytes included", async () => {
    await vector('$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', 'U*U', 'U*V');
    await vector('$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK', 'U*U*', 'U*U');
    await vector('$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a', 'U*U*U', 'U*U*');
    await vector('$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy', '', ' ');
    const long = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    const hash = '$2a$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui';
    await vector(hash, long, long.slice(0, -1));
    expect(await verifyPassword(`${long}chars after 72 are ignored`, stored(hash))).toBe(true);
  });

  it("verifies pyca/bcrypt's $2b$ vectors (tests/test_bcrypt.py)", async () => {
    await vector('$2b$04$cVWp4XaNU8a4v1uMRum2SO026BWLIoQMD/TXg5uZV.0P.uO8m3YEm', 'Kk4DQuMMfZL9o', 'Kk4DQuMMfZL9p');
    await vector('$2b$04$pQ7gRO7e6wx/936oXhNjrOUNOHL1D0h1N2IDbJZYs.1ppzSof6SPy', '9IeRXmnGxMYbs', 'Kk4DQuMMfZL9o');
  });

  it("verifies PHP's $2y$ (php-src ext/standard/tests/password/password_deprecated_salts.phpt)", async () => {
    await vector('$2y$07$usesomesillystringfore2uDLvp1Ii2e./U9C8sBjqp8I90dH6hi', 'rasmuslerdorf', 'rasmusler');
    await vector('$2y$10$MTIzNDU2Nzg5MDEyMzQ1Nej0NmcAWSLR.oP7XOR9HD/vjUuOj100y', 'test', 'Test');
  });

  it('refuses costs over 14 as too costly, and what is no bcrypt hash as malformed', () => {
    const base = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
    expect(acceptImportedHash(base.replace('$05$', '$14$'), undefined).ok).toBe(true);
    refused(base.replace('$05$', '$15$'), 'too_costly');
    refused(base.replace('$05$', '$31$'), 'too_costly');
    refused(base.replace('$05$', '$03$'), 'malformed');
    refused(base.replace('$05$', '$32$'), 'malformed');
    refused(base.replace('$2a$', '$2x$'), 'malformed');
    refused(base.slice(0, -1), 'malformed');
    refused(`${base}A`, 'malformed');
  });
});

describe('Argon2', () => {
  // The reference implementation's PHC-string vectors (github.com/P-H-C/phc-winner-argon2, src/test.c): "password" and
  // the salt "somesalt". RFC 9106's vectors need a secret and associated data, which a stored hash cannot carry (and
  // @node-rs/argon2 takes no associated data), so they cannot be checked here.
  it("verifies the reference implementation's argon2i vectors, version 0x13 and 0x10 (no v=)", async () => {
    await vector(
      '$argon2i$v=19$m=256,t=2,p=2$c29tZXNhbHQ$T/XOJ2mh1/TIpJHfCdQan76Q5esCFVoT5MAeIM1Oq2E',
      'password',
      'passwore',
    );
    await vector(
      '$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA',
      'password',
      '',
    );
    await vector(
      '$argon2i$m=256,t=2,p=1$c29tZXNhbHQ$/U3YPXYsSb3q9XxHvc0MLxur+GP960kN9j7emXX8zwY',
      'password',
      'Password',
    );
    // "the encoded password is passwore"
    await vector(
      '$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$8iIuixkI73Js3G1uMbezQXD0b8LG4SXGsOwoQkdAQIM',
      'passwore',
      'password',
    );
  });

  it("verifies the reference implementation's argon2id vectors", async () => {
    await vector(
      '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
      'password',
      'passwor',
    );
    await vector(
      '$argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc',
      'password',
      'passwore',
    );
    await vector(
      '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
      'password',
      'x',
    );
  });

  it('accepts 256 MiB, and refuses more memory, more than 10 passes or 16 lanes as too costly', () => {
    // test.c's m=2^18 vector sits on the bound; its m=2^20 one (TEST_LARGE_RAM) is over it.
    expect(
      acceptImportedHash(
        '$argon2id$v=19$m=262144,t=2,p=1$c29tZXNhbHQ$eP4eyR+zqlZX1y5xCFTkw9m5GYx0L5YWwvCFvtlbLow',
        undefined,
      ),
    ).toMatchObject({ ok: true });
    refused('$argon2i$v=19$m=1048576,t=2,p=1$c29tZXNhbHQ$0Vh6ygkiw7XWqD7asxvuPE667zQu1hJ6VdGbI1GtH0E', 'too_costly');
    const base = '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';
    refused(base.replace('t=2', 't=11'), 'too_costly');
    refused(base.replace('p=1', 'p=17'), 'too_costly');
    expect(acceptImportedHash(base.replace('t=2', 't=10').replace('p=1', 'p=16'), undefined).ok).toBe(true);
  });

  it("refuses test.c's invalid encodings, argon2d, and what Argon2 itself refuses, as malformed", () => {
    // test.c: a $ missing (twice), a salt too short.
    refused('$argon2i$v=19$m=65536,t=2,p=1c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA', 'malformed');
    refused('$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQwWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA', 'malformed');
    refused('$argon2i$v=19$m=65536,t=2,p=1$$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ', 'malformed');
    const base = '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4';
    refused(base.replace('argon2id', 'argon2d'), 'malformed');
    refused(base.replace('v=19', 'v=18'), 'malformed');
    refused(base.replace('m=256', 'm=7'), 'malformed'); // less than 8 KiB a lane
    refused(base.replace('t=2', 't=0'), 'malformed');
    refused(base.replace('t=2', 't=02'), 'malformed');
    refused(base.replace('p=1', 'p=1,keyid=abc'), 'malformed');
    refused(base.replace('c29tZXNhbHQ', 'c29tZXNhbH!'), 'malformed');
  });
});

describe('scrypt ($scrypt$, PHC)', () => {
  // RFC 7914 section 12's vectors, written as PHC strings (N = 2^ln) from the RFC's inputs and outputs.
  const rfc = {
    nacl: hex(`fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
               2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40`),
    sodium: hex(`70 23 bd cb 3a fd 73 48 46 1c 06 cd 81 fd 38 eb fd a8 fb ba 90 4f 8e 3e a9 b5 43 f6 54 5d a1 f2
                 d5 43 29 55 61 3f 0f cf 62 d4 97 05 24 2a 9a f9 e6 1e 85 dc 0d 65 1e 40 df cf 01 7b 45 57 58 87`),
    sodiumLarge: hex(`21 01 cb 9b 6a 51 1a ae ad db be 09 cf 70 f8 81 ec 56 8d 57 4a 2f fd 4d ab e5 ee 98 20 ad aa 47
                      8e 56 fd 8f 4b a5 d0 9f fa 1c 6d 92 7c 40 f4 c3 37 30 40 49 e8 a9 52 fb cb f4 5c 6f a7 7a 41 a4`),
    empty: hex(`77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
                fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06`),
  };

  it("verifies RFC 7914's vectors, p=16 and the empty password and salt included", async () => {
    await vector(phc('scrypt', 'ln=10,r=8,p=16', 'NaCl', rfc.nacl), 'password', 'Password');
    await vector(phc('scrypt', 'ln=14,r=8,p=1', 'SodiumChloride', rfc.sodium), 'pleaseletmein', 'pleaseletmeout');
    await vector(phc('scrypt', 'ln=4,r=1,p=1', '', rfc.empty), '', 'password');
  });

  it("verifies passlib's vectors (passlib/tests/test_handlers_scrypt.py), and its adapted base64 with '.'", async () => {
    await vector(
      '$scrypt$ln=8,r=8,p=1$wlhLyXmP8b53bm1NKYVQqg$mTpvG8lzuuDk+DWz8HZIB6Vum6erDuUm0As5yU+VxWA',
      'test',
      'tset',
    );
    const adapted = phc('scrypt', 'ln=10,r=8,p=16', 'NaCl', rfc.nacl).replace(/\+/g, '.');
    expect(adapted).toContain('.');
    expect(stored(adapted)).toBe(phc('scrypt', 'ln=10,r=8,p=16', 'NaCl', rfc.nacl));
    await vector(adapted, 'password', 'passwort');
  });

  it('refuses more than 256 MiB (128·N·r) or p over 16 as too costly, and broken strings as malformed', () => {
    // RFC 7914's N=2^20, r=8 vector takes 1 GiB.
    refused(phc('scrypt', 'ln=20,r=8,p=1', 'SodiumChloride', rfc.sodiumLarge), 'too_costly');
    expect(acceptImportedHash(phc('scrypt', 'ln=18,r=8,p=1', 'NaCl', rfc.nacl), undefined).ok).toBe(true);
    refused(phc('scrypt', 'ln=18,r=9,p=1', 'NaCl', rfc.nacl), 'too_costly');
    refused(phc('scrypt', 'ln=10,r=8,p=17', 'NaCl', rfc.nacl), 'too_costly');
    // Within the memory bound, but sixteen lanes of it: 128·N·r·p over 256 MiB of work.
    refused(phc('scrypt', 'ln=17,r=8,p=16', 'NaCl', rfc.nacl), 'too_costly');
    refused(phc('scrypt', 'ln=18,r=8,p=2', 'NaCl', rfc.nacl), 'too_costly');
    expect(acceptImportedHash(phc('scrypt', 'ln=17,r=8,p=2', 'NaCl', rfc.nacl), undefined).ok).toBe(true);
    refused(phc('scrypt', 'ln=99,r=8,p=1', 'NaCl', rfc.nacl), 'too_costly');
    refused(phc('scrypt', 'ln=0,r=8,p=1', 'NaCl', rfc.nacl), 'malformed');
    refused(phc('scrypt', 'ln=10,r=8', 'NaCl', rfc.nacl), 'malformed');
    refused(phc('scrypt', 'ln=10,r=8,p=1', 'NaCl', rfc.nacl.subarray(0, 15)), 'malformed');
    refused(phc('scrypt', 'ln=10,r=8,p=1', 'NaCl', Buffer.concat([rfc.nacl, rfc.nacl, rfc.nacl])), 'malformed');
    refused(`${phc('scrypt', 'ln=10,r=8,p=1', 'NaCl', rfc.nacl)}$`, 'malformed');
  });
});

describe('PBKDF2', () => {
  // RFC 7914 section 11's PBKDF2-HMAC-SHA256 vectors (64-byte outputs), written in the PHC form.
  const passwd = hex(`55 ac 04 6e 56 e3 08 9f ec 16 91 c2 25 44 b6 05 f9 41 85 21 6d de 04 65 e6 8b 9d 57 c2 0d ac bc
                      49 ca 9c cc f1 79 b6 45 99 16 64 b3 9d 77 ef 31 7c 71 b8 45 b1 e3 0b d5 09 11 20 41 d3 a1 97 83`);
  const nacl = hex(`4d dc d8 f6 0b 98 be 21 83 0c ee 5e f2 27 01 f9 64 1a 44 18 d0 4c 04 14 ae ff 08 87 6b 34 ab 56
                    a1 d4 25 a1 22 58 33 54 9a db 84 1b 51 c9 b3 17 6a 27 2b de bb a1 d0 78 47 8f 62 b3 97 f3 3c 8d`);
  // passlib's vectors (passlib/tests/test_handlers_pbkdf2.py), in its own form; UPASS_WAV is its non-ASCII password.
  const UPASS_WAV = '\u0399\u03c9\u03b1\u03bd\u03bd\u03b7\u03c2';
  const passlib512 =
    '$pbkdf2-sha512$1212$RHY0Fr3IDMSVO/RSZyb5ow$eNLfBK.eVozomMr.1gYa17k9B7KIK25NOEshvhrSX.esqY3s.FvWZViXz4KoLlQI.BzY/YTNJOiKc5gBYFYGww';

  it("verifies RFC 7914's PBKDF2-HMAC-SHA256 vectors in the PHC form ($pbkdf2-sha256$i=…[,l=…])", async () => {
    await vector(phc('pbkdf2-sha256', 'i=1', 'salt', passwd), 'passwd', 'password');
    await vector(phc('pbkdf2-sha256', 'i=80000,l=64', 'NaCl', nacl), 'Password', 'password');
  });

  it("verifies passlib's $pbkdf2-sha256$ and $pbkdf2-sha512$ vectors, in adapted base64", async () => {
    const p256 = '$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ';
    await vector(p256, 'password', 'p4ssword');
    await vector(
      '$pbkdf2-sha256$1212$3SABFJGDtyhrQMVt1uABPw$WyaUoqCLgvz97s523nF4iuOqZNbp5Nt8do/cuaa7AiI',
      UPASS_WAV,
      'password',
    );
    await vector(passlib512, 'password', 'p4ssword');
    await vector(
      '$pbkdf2-sha512$1212$KkbvoKGsAIcF8IslDR6skQ$8be/PRmd88Ps8fmPowCJttH9G3vgxpG.Krjt3KT.NP6cKJ0V4Prarqf.HBwz0dCkJ6xgWnSj2ynXSV7MlvMa8Q',
      UPASS_WAV,
      UPASS_WAV.toLowerCase(),
    );
  });

  it("verifies passlib's SHA-512 vector written in the PHC form (standard base64)", async () => {
    const [, , , salt, hash] = passlib512.split('$') as string[];
    const std = (ab64: string) => b64(Buffer.from(ab64.replace(/\./g, '+'), 'base64'));
    await vector(`$pbkdf2-sha512$i=1212,l=64$${std(salt as string)}$${std(hash as string)}`, 'password', 'p4ssword');
  });

  it('refuses over 2,000,000 iterations as too costly, and broken strings as malformed', () => {
    expect(acceptImportedHash(phc('pbkdf2-sha256', 'i=2000000', 'NaCl', nacl), undefined).ok).toBe(true);
    refused(phc('pbkdf2-sha256', 'i=2000001', 'NaCl', nacl), 'too_costly');
    refused(phc('pbkdf2-sha512', 'i=4000000000', 'NaCl', nacl), 'too_costly');
    refused('$pbkdf2-sha256$2000001$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ', 'too_costly');
    refused(phc('pbkdf2-sha256', 'i=0', 'NaCl', nacl), 'malformed');
    refused(phc('pbkdf2-sha256', 'i=1000,l=32', 'NaCl', nacl), 'malformed'); // l= is not the hash's length
    refused(phc('pbkdf2-sha1', 'i=1000', 'NaCl', nacl), 'malformed');
    refused(phc('pbkdf2-sha256', 'i=1000', 'NaCl', Buffer.concat([nacl, nacl])), 'malformed'); // over 64 bytes
    // passlib's own malformed examples: a zero-padded or empty rounds field, a field too many.
    refused('$pbkdf2-sha256$01212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ', 'malformed');
    refused('$pbkdf2-sha256$$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ', 'malformed');
    refused('$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ$', 'malformed');
  });
});

describe("Django's pbkdf2_sha256", () => {
  // Django's own tests (tests/auth_tests/test_hashers.py, test_pbkdf2 and test_low_level_pbkdf2), as the iteration
  // count stood in successive releases: 390,000, 600,000, 1,500,000. The salt is the text as written.
  const letmein = 'l\u00e8tmein';

  it("verifies Django's vectors", async () => {
    await vector('pbkdf2_sha256$390000$seasalt$8xBlGd3jVgvJ+92hWPxi5ww0uuAuAnKgC45eudxro7c=', letmein, 'l\u00e8tmeinz');
    await vector('pbkdf2_sha256$390000$seasalt2$geC/uZ92nRXDSjSxeoiBqYyRcrLzMm8xK3ro1QS1uo8=', letmein, 'letmein');
    await vector('pbkdf2_sha256$600000$seasalt$OAXyhAQ/4ZDA9V5RMExt3C1OwQdUpLZ99vm1McFlLRA=', letmein, 'l\u00e8tmeinz');
    await vector(
      'pbkdf2_sha256$1500000$seasalt$P4UiMPVduVWIL/oS1GzH+IofsccjJNM5hUTikBvi5to=',
      letmein,
      'l\u00e8tmeinz',
    );
  });

  it('checks the password as typed: the same letters composed otherwise do not match an imported hash', async () => {
    const s = stored('pbkdf2_sha256$390000$seasalt$8xBlGd3jVgvJ+92hWPxi5ww0uuAuAnKgC45eudxro7c=');
    const decomposed = 'le\u0300tmein'; // NFKC makes it the vector's password
    expect(decomposed.normalize('NFKC')).toBe(letmein);
    expect(await verifyPassword(decomposed, s)).toBe(false);
  });

  it('refuses over 2,000,000 iterations as too costly, and broken strings as malformed', () => {
    const hash = 'P4UiMPVduVWIL/oS1GzH+IofsccjJNM5hUTikBvi5to=';
    refused(`pbkdf2_sha256$2000001$seasalt$${hash}`, 'too_costly');
    refused(`pbkdf2_sha256$0$seasalt$${hash}`, 'malformed');
    refused(`pbkdf2_sha256$1000$$${hash}`, 'malformed');
    refused(`pbkdf2_sha256$1000$seasalt$${hash.slice(0, 20)}`, 'malformed');
    refused(`pbkdf2_sha256$1000$seasalt$${hash}=`, 'malformed');
    refused(`pbkdf2_sha1$1000$seasalt$${hash}`, 'malformed');
    refused(`pbkdf2_sha256$1000$${'s'.repeat(65)}$${hash}`, 'malformed');
  });
});

describe('sha512-crypt ($6$)', () => {
  // The specification's vectors: Ulrich Drepper, "Unix crypt using SHA-256 and SHA-512" (SHA-crypt.txt).
  it("verifies the specification's vectors within the bound", async () => {
    await vector(
      '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
      'Hello world!',
      'Hello world',
    );
    await vector(
      '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.',
      'Hello world!',
      'hello world!',
    );
    await vector(
      '$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0',
      'This is just a test',
      'This is just a test.',
    );
    await vector(
      '$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1',
      'a very much longer text to encrypt.  This one even stretches over morethan one line.',
      'a very much longer text to encrypt.  This one even stretches over more than one line.',
    );
    // "rounds=10" is written as the minimum, 1,000.
    await vector(
      '$6$rounds=1000$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.',
      'the minimum number is still observed',
      'the minimum number is still observe',
    );
  });

  it('refuses more than 20,000 rounds as too costly, and what sha512-crypt never writes as malformed', () => {
    // The specification's rounds=77777 and rounds=123456 vectors.
    refused(
      '$6$rounds=77777$short$WuQyW2YR.hBNpjjRhpYD/ifIw05xdfeEyQoMxIXbkvr0gge1a1x3yRULJ5CCaUeOxFmtlcGZelFl5CxtgfiAc0',
      'too_costly',
    );
    refused(
      '$6$rounds=123456$asaltof16chars..$BtCwjqMJGx5hrJhZywWvt0RLE8uZ4oPwcelCjmw2kSYu.Ec6ycULevoBK25fs2xXgMNrCzIMVcgEJAstJeonj1',
      'too_costly',
    );
    const base =
      '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.';
    refused(base.replace('rounds=10000', 'rounds=656000'), 'too_costly');
    refused(base.replace('rounds=10000', 'rounds=999999999'), 'too_costly');
    expect(acceptImportedHash(base.replace('rounds=10000', 'rounds=20000'), undefined).ok).toBe(true);
    refused(base.replace('rounds=10000', 'rounds=20001'), 'too_costly');
    refused(base.replace('rounds=10000', 'rounds=999'), 'malformed');
    refused(base.replace('rounds=10000', 'rounds=010000'), 'malformed');
    refused(base.replace('saltstringsaltst', 'saltstringsaltstr'), 'malformed');
    refused(base.replace('saltstringsaltst', 'saltstring saltst'), 'malformed');
    refused(base.slice(0, -1), 'malformed');
    refused(base.replace('$6$', '$5$'), 'malformed');
  });

  it('does not check passwords longer than 256 bytes (its work grows with their length)', async () => {
    // Hashes made by unixcrypt itself, for passwords at and just over the limit.
    const limit = '\u00e9'.repeat(128); // 256 bytes in UTF-8
    const over = `${limit}x`;
    expect(await verifyPassword(limit, stored(sha512crypt(limit, '$6$saltstring')))).toBe(true);
    expect(await verifyPassword(over, stored(sha512crypt(over, '$6$saltstring')))).toBe(false);
  });
});

describe('Firebase scrypt', () => {
  // github.com/firebase/scrypt's README: a project's hash parameters, and user1's exported hash and salt.
  const config: HashConfig = {
    algorithm: 'firebase-scrypt',
    signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
    saltSeparator: 'Bw==',
    rounds: 8,
    memCost: 14,
  };
  const user1 = {
    algorithm: 'firebase-scrypt' as const,
    hash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
    salt: '42xEC+ixf3L2lw==',
  };

  it("verifies the README's user, from a stored string that carries the project's parameters", async () => {
    const s = stored(user1, config);
    expect(s.startsWith('$firebase-scrypt$')).toBe(true);
    expect(await verifyPassword('user1password', s)).toBe(true);
    expect(await verifyPassword('user1passwore', s)).toBe(false);
    expect(await verifyPassword('user1password', stored(user1, { ...config, rounds: 7 }))).toBe(false);
    expect(await verifyPassword('user1password', stored(user1, { ...config, saltSeparator: 'CA==' }))).toBe(false);
    expect(needsRehash(s, true)).toBe(true);
    // The stored form is this module's own: it round-trips, and no imported string may claim it.
    expect(acceptImportedHash(s, undefined)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('refuses a hash without the batch hashConfig, or one that cannot be verified, as malformed', () => {
    const refusedWith = (given: ImportedHash, c: HashConfig | undefined, reason: 'malformed' | 'too_costly') => {
      const r = acceptImportedHash(given, c);
      expect(r).toMatchObject({ ok: false, reason });
      for (const secret of [user1.hash, user1.salt, config.signerKey])
        expect(r.ok ? '' : r.message).not.toContain(secret.slice(0, 8));
    };
    refusedWith(user1, undefined, 'malformed');
    refusedWith({ ...user1, hash: user1.hash.slice(0, 40) }, config, 'malformed'); // not the signer key's length
    refusedWith({ ...user1, hash: `!${user1.hash.slice(1)}` }, config, 'malformed');
    refusedWith({ ...user1, salt: 'a' }, config, 'malformed');
    refusedWith(user1, { ...config, signerKey: 'not base64!' }, 'malformed');
    refusedWith(user1, { ...config, memCost: 15 }, 'too_costly');
    refusedWith(user1, { ...config, rounds: 0 }, 'malformed');
  });
});

describe('what is no hash of a known kind', () => {
  it('is refused as malformed, without repeating it', () => {
    for (const given of ['', 'plaintext password', '$1$saltsalt$qjXMvbEw8oaL.CzflDugX/', '{SSHA}abcdefghijklmnop']) {
      const r = acceptImportedHash(given, undefined);
      expect(r).toMatchObject({ ok: false, reason: 'malformed' });
      if (given) expect(r.ok ? '' : r.message).not.toContain(given);
    }
  });

  it('verifies as false, without throwing, whatever a stored value holds', async () => {
    for (const bad of [
      '',
      'plaintext',
      '$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', // beyond the bound: never computed
      '$argon2id$v=19$m=4294967295,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
      '$6$rounds=999999999$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
      '$firebase-scrypt$r=8,m=30$AAAA$Bw$AAAA$AAAAAAAAAAAAAAAAAAAAAA',
      '$scrypt$ln=40,r=8,p=1$c2FsdA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      expect(await verifyPassword('password', bad), bad).toBe(false);
      expect(await verifyImportedHash('password', bad), bad).toBe(false);
    }
  });
});

describe("the platform's own hashes", () => {
  it('still verify, in NFKC, and are not rehashed at the policy costs', async () => {
    const own = await hashPassword('correct horse battery staple');
    expect(await verifyPassword('correct horse battery staple', own)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', own)).toBe(false);
    expect(needsRehash(own, false)).toBe(false);
    expect(needsRehash(own, true)).toBe(false);
    const generated = await hashPassword('\ufb01ve boxing wizards jump', GENERATED_PASSWORD_COST);
    expect(await verifyPassword('five boxing wizards jump', generated)).toBe(true);
    expect(needsRehash(generated, false)).toBe(false);
    const cheap = await hashPassword('correct horse battery staple', { ln: 4, r: 8, p: 1 });
    expect(await verifyPassword('correct horse battery staple', cheap)).toBe(true);
    expect(needsRehash(cheap, false)).toBe(true);
  });

  it('let an imported $scrypt$ made from a password that is not in NFKC match it as typed', async () => {
    // Made the way another system would have: from the password as typed, here with the "ﬁ" ligature.
    const typed = '\ufb01ve boxing wizards jump';
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync(typed, salt, 32, { N: 1024, r: 8, p: 1 });
    const s = stored(`$scrypt$ln=10,r=8,p=1$${b64(salt)}$${b64(key)}`);
    expect(await verifyPassword(typed, s)).toBe(true);
    expect(await verifyPassword('five boxing wizards jump', s)).toBe(false);
    // At the generated passwords' cost and with the lengths of ours, but imported: replaced at the first sign-in.
    expect(needsRehash(s, true)).toBe(true);
  });
});
