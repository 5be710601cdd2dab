import { createCipheriv, pbkdf2, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Argon2 from '@node-rs/argon2';
import type * as Bcrypt from '@node-rs/bcrypt';
import type { HashConfig, ImportedHash } from '../../contract/users.js';

// Password hashes brought from other systems (docs/migrate.md): which are accepted, the form each is stored in, and how
// a password is checked against it. One reader serves both: a hash is parsed and held to the bounds when it is
// imported, and again each time a password is checked against it, so a row that was never imported this way cannot
// make us compute more than an imported one could. Every scheme is computed by a library or by Node's own crypto.

/** Why an imported hash is refused: it is no hash of a known scheme, or checking it would cost more than we allow. */
export type Refusal = { ok: false; reason: 'malformed' | 'too_costly'; message: string };
export type Accepted = { ok: true; stored: string } | Refusal;

// The bounds. bcrypt's cost, Argon2's memory and time, PBKDF2's iterations and scrypt's memory are the API's promise
// (docs/migrate.md); the others are this module's. A hash beyond them is refused as too costly, and never computed.
const BCRYPT_MAX_COST = 14;
const ARGON2_MAX_MEMORY_KIB = 262_144; // 256 MiB
const ARGON2_MAX_TIME = 10;
const ARGON2_MAX_PARALLELISM = 16;
const PBKDF2_MAX_ITERATIONS = 2_000_000;
/** scrypt's memory, 128·N·r bytes: twice what the platform's own hashes take (passwords.ts). */
const SCRYPT_MAX_MEMORY = 256 * 1024 * 1024;
const SCRYPT_MAX_PARALLELISM = 16;
/**
 * scrypt's work, 128·N·r·p bytes mixed (p lanes of 128·N·r each): twice the platform's own hash's too, so that a hash
 * with many lanes cannot hold a thread of the pool far longer than a sign-in of the platform's does.
 */
const SCRYPT_MAX_WORK = 256 * 1024 * 1024;
/**
 * sha512-crypt is computed in JavaScript (unixcrypt), on the event loop: every other request waits while it runs.
 * Measured with unixcrypt 3.0.4 on Node 20 (the development machine, an AMD EPYC with 2 vCPUs): glibc's default
 * 5,000 rounds take ~10 ms, 100,000 ~0.28 s, passlib's default 656,000 ~1.9 s. Every sign-in attempt, wrong ones
 * included, stalls the server that long until the first success replaces the hash: four times glibc's default (~40 ms)
 * is the most accepted.
 */
const SHA512_CRYPT_MAX_ROUNDS = 20_000;
/** sha512-crypt's own floor: no implementation writes fewer rounds (it computes 1,000 instead). */
const SHA512_CRYPT_MIN_ROUNDS = 1000;
/**
 * sha512-crypt hashes the password a number of times that grows with its length, and each round hashes it again:
 * longer passwords are not checked against it (the platform's own passwords are at most 256 characters).
 */
const SHA512_CRYPT_MAX_PASSWORD_BYTES = 256;
/** Firebase's own ranges (the batch's schema holds hashConfig to them too): at most 16 MiB of scrypt memory. */
const FIREBASE_MAX_ROUNDS = 8;
const FIREBASE_MAX_MEM_COST = 14;

// Bounds on what a hash carries, so that nothing a stranger sends makes us allocate or compute much. A hash shorter
// than 16 bytes would let a wrong password through by chance too often to be worth keeping.
const MAX_SALT_BYTES = 64;
const MIN_HASH_BYTES = 16;
const MAX_HASH_BYTES = 128;
/** Two blocks of SHA-256 (one of SHA-512): PBKDF2's work grows with each further block of output. */
const PBKDF2_MAX_HASH_BYTES = 64;

const DECIMAL = '(0|[1-9][0-9]{0,9})';
const B64 = '([A-Za-z0-9+/]*)';
/** passlib's "adapted base64": `.` for `+`, no padding. */
const AB64 = '([A-Za-z0-9./]*)';

const BCRYPT = /^\$2[aby]\$([0-9]{2})\$[./A-Za-z0-9]{53}$/;
const ARGON2 = new RegExp(
  `^\\$(argon2id|argon2i)\\$(?:v=(16|19)\\$)?m=${DECIMAL},t=${DECIMAL},p=${DECIMAL}\\$${B64}\\$${B64}$`,
);
const SCRYPT = new RegExp(
  `^\\$scrypt\\$ln=${DECIMAL},r=${DECIMAL},p=${DECIMAL}\\$([A-Za-z0-9+/.]*)\\$([A-Za-z0-9+/.]*)$`,
);
const PBKDF2_PHC = new RegExp(`^\\$pbkdf2-(sha256|sha512)\\$i=${DECIMAL}(?:,l=${DECIMAL})?\\$${B64}\\$${B64}$`);
const PBKDF2_PASSLIB = new RegExp(`^\\$pbkdf2-(sha256|sha512)\\$${DECIMAL}\\$${AB64}\\$${AB64}$`);
const DJANGO = new RegExp(`^pbkdf2_sha256\\$${DECIMAL}\\$([^$]{1,64})\\$([A-Za-z0-9+/]*={0,2})$`);
const SHA512_CRYPT = /^\$6\$(?:rounds=([0-9]{1,10})\$)?([./0-9A-Za-z]{0,16})\$[./0-9A-Za-z]{86}$/;
/**
 * The stored form of a Firebase hash: `$firebase-scrypt$r=<rounds>,m=<memCost>$<signer key>$<salt separator>$<salt>$
 * <hash>`, unpadded base64. It carries the project's signer key: store/users.ts seals what has this prefix.
 */
const FIREBASE = new RegExp(`^\\$firebase-scrypt\\$r=${DECIMAL},m=${DECIMAL}\\$${B64}\\$${B64}\\$${B64}\\$${B64}$`);
const FIREBASE_PREFIX = '$firebase-scrypt$';

const KINDS =
  'bcrypt ($2a$, $2b$, $2y$), $argon2id$, $argon2i$, $scrypt$, $pbkdf2-sha256$, $pbkdf2-sha512$, ' +
  "Django's pbkdf2_sha256$, sha512-crypt ($6$), or a firebase-scrypt object";

/** A hash understood and within bounds: the form it is stored in, and how a password is checked against it. */
interface Understood {
  ok: true;
  stored: string;
  matches(password: string): Promise<boolean>;
}

const malformed = (message: string): Refusal => ({ ok: false, reason: 'malformed', message });
const tooCostly = (message: string): Refusal => ({ ok: false, reason: 'too_costly', message });

/**
 * The bytes of base64 text (standard alphabet, or passlib's with `.` for `+`; padding only where `padded`), or
 * undefined when it is not base64 or decodes to more than `max` bytes. Buffer.from alone would skip what it cannot read.
 */
function unbase64(
  text: string,
  max: number,
  options: { adapted?: boolean; padded?: boolean } = {},
): Buffer | undefined {
  let body = options.adapted ? text.replace(/\./g, '+') : text;
  if (options.padded && body.endsWith('=')) {
    if (body.length % 4 !== 0) return undefined;
    body = body.replace(/={1,2}$/, '');
  }
  if (!/^[A-Za-z0-9+/]*$/.test(body) || body.length % 4 === 1 || Math.floor((body.length * 3) / 4) > max) {
    return undefined;
  }
  return Buffer.from(body, 'base64');
}

const base64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** Whether `expected` and `actual` are the same bytes, in time that does not depend on where they differ. */
function same(expected: Buffer, actual: Buffer): boolean {
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The options of Node's scrypt for N = 2^ln: its memory ceiling (32 MiB by default) raised to just above the need. */
export function scryptOptions(cost: { ln: number; r: number; p: number }): ScryptOptions {
  const n = 2 ** cost.ln;
  return { N: n, r: cost.r, p: cost.p, maxmem: 128 * n * cost.r + 16 * 1024 * 1024 };
}

/** scrypt, off the event loop (libuv's threadpool). */
export function scryptKey(
  password: string | Buffer,
  salt: Buffer,
  length: number,
  cost: { ln: number; r: number; p: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, scryptOptions(cost), (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function pbkdf2Key(
  password: string,
  salt: Buffer,
  iterations: number,
  length: number,
  digest: string,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    pbkdf2(password, salt, iterations, length, digest, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

// The native addons (bcrypt, Argon2) are loaded when a hash of theirs is first checked, never when the platform
// starts, and from node_modules, like keytar (scripts/bundle.mjs leaves them out of the bundle and the snapshot).
let load: NodeJS.Require | undefined;
const bcryptAddon = () => {
  load ??= createRequire(import.meta.url);
  return load('@node-rs/bcrypt') as typeof Bcrypt;
};
const argon2Addon = () => {
  load ??= createRequire(import.meta.url);
  return load('@node-rs/argon2') as typeof Argon2;
};

/** A `$scrypt$` hash as read: its cost, salt and key. */
export interface ScryptHash {
  cost: { ln: number; r: number; p: number };
  salt: Buffer;
  key: Buffer;
}

/** A `$scrypt$ln=…,r=…,p=…$salt$key` hash (standard base64, or passlib's with `.`), or why it is refused. */
export function readScrypt(text: string): ScryptHash | Refusal {
  const m = SCRYPT.exec(text);
  const salt = m && unbase64(m[4] as string, MAX_SALT_BYTES, { adapted: true });
  const key = m && unbase64(m[5] as string, MAX_HASH_BYTES, { adapted: true });
  if (!m || !salt || !key || key.length < MIN_HASH_BYTES) {
    return malformed(
      `not a scrypt hash ($scrypt$ln=…,r=…,p=…$salt$hash, a hash of ${MIN_HASH_BYTES} to ${MAX_HASH_BYTES} bytes)`,
    );
  }
  const cost = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (cost.ln < 1 || cost.r < 1 || cost.p < 1) return malformed('scrypt: ln, r and p must be at least 1');
  const memory = 128 * 2 ** cost.ln * cost.r;
  if (memory > SCRYPT_MAX_MEMORY) {
    return tooCostly(`scrypt: 128·N·r is ${memory} bytes, over the most accepted (${SCRYPT_MAX_MEMORY}, 256 MiB)`);
  }
  if (cost.p > SCRYPT_MAX_PARALLELISM) {
    return tooCostly(`scrypt: p=${cost.p} is over the most accepted (${SCRYPT_MAX_PARALLELISM})`);
  }
  if (memory * cost.p > SCRYPT_MAX_WORK) {
    return tooCostly(`scrypt: 128·N·r·p is ${memory * cost.p} bytes of work, over the most accepted (256 MiB)`);
  }
  return { cost, salt, key };
}

function bcrypt(text: string): Understood | Refusal {
  const cost = Number(BCRYPT.exec(text)?.[1] ?? Number.NaN);
  if (!(cost >= 4 && cost <= 31))
    return malformed('not a bcrypt hash ($2a$, $2b$ or $2y$, a cost of 04 to 31, 53 characters)');
  if (cost > BCRYPT_MAX_COST) return tooCostly(`bcrypt: cost ${cost} is over the most accepted (${BCRYPT_MAX_COST})`);
  return { ok: true, stored: text, matches: (password) => bcryptAddon().verify(password, text) };
}

function argon2(text: string): Understood | Refusal {
  const m = ARGON2.exec(text);
  const salt = m && unbase64(m[6] as string, MAX_SALT_BYTES);
  const hash = m && unbase64(m[7] as string, MAX_HASH_BYTES);
  if (!m || !salt || !hash || salt.length < 8 || hash.length < MIN_HASH_BYTES) {
    return malformed(
      `not an Argon2 hash ($argon2id$ or $argon2i$, [v=19$]m=…,t=…,p=…, a salt of 8 to ${MAX_SALT_BYTES} bytes)`,
    );
  }
  const [memory, time, parallelism] = [Number(m[3]), Number(m[4]), Number(m[5])];
  if (time < 1 || parallelism < 1 || memory < 8 * parallelism) {
    return malformed('argon2: t and p must be at least 1, and m at least 8·p');
  }
  if (memory > ARGON2_MAX_MEMORY_KIB) {
    return tooCostly(`argon2: m=${memory} KiB is over the most accepted (${ARGON2_MAX_MEMORY_KIB}, 256 MiB)`);
  }
  if (time > ARGON2_MAX_TIME) return tooCostly(`argon2: t=${time} is over the most accepted (${ARGON2_MAX_TIME})`);
  if (parallelism > ARGON2_MAX_PARALLELISM) {
    return tooCostly(`argon2: p=${parallelism} is over the most accepted (${ARGON2_MAX_PARALLELISM})`);
  }
  return { ok: true, stored: text, matches: (password) => argon2Addon().verify(text, password) };
}

function scryptHash(text: string): Understood | Refusal {
  const read = readScrypt(text);
  if ('ok' in read) return read;
  const { cost, salt, key } = read;
  // Stored in standard base64, whichever alphabet it came in.
  const stored = `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${base64(salt)}$${base64(key)}`;
  return {
    ok: true,
    stored,
    matches: async (password) => same(key, await scryptKey(password, salt, key.length, cost)),
  };
}

/** PBKDF2 with `digest`, once its hash is read: the bounds, then the check. */
function pbkdf2Hash(
  text: string,
  digest: string,
  iterations: number,
  salt: Buffer,
  hash: Buffer,
  form: string,
): Understood | Refusal {
  if (hash.length < MIN_HASH_BYTES || hash.length > PBKDF2_MAX_HASH_BYTES) {
    return malformed(`${form}: the hash must be ${MIN_HASH_BYTES} to ${PBKDF2_MAX_HASH_BYTES} bytes`);
  }
  if (iterations < 1) return malformed(`${form}: the iteration count must be at least 1`);
  if (iterations > PBKDF2_MAX_ITERATIONS) {
    return tooCostly(`${form}: ${iterations} iterations are over the most accepted (${PBKDF2_MAX_ITERATIONS})`);
  }
  return {
    ok: true,
    stored: text,
    matches: async (password) => same(hash, await pbkdf2Key(password, salt, iterations, hash.length, digest)),
  };
}

function pbkdf2Phc(text: string): Understood | Refusal {
  const phc = PBKDF2_PHC.exec(text);
  if (phc) {
    const salt = unbase64(phc[4] as string, MAX_SALT_BYTES);
    const hash = unbase64(phc[5] as string, MAX_HASH_BYTES);
    if (!salt || !hash) return malformed('not a PBKDF2 hash ($pbkdf2-sha256$i=…[,l=…]$salt$hash, base64)');
    if (phc[3] !== undefined && Number(phc[3]) !== hash.length)
      return malformed('pbkdf2: l= is not the length of the hash');
    return pbkdf2Hash(text, phc[1] as string, Number(phc[2]), salt, hash, `pbkdf2-${phc[1]}`);
  }
  // passlib's form: $pbkdf2-sha256$rounds$salt$hash, in adapted base64.
  const passlib = PBKDF2_PASSLIB.exec(text);
  const salt = passlib && unbase64(passlib[3] as string, MAX_SALT_BYTES, { adapted: true });
  const hash = passlib && unbase64(passlib[4] as string, MAX_HASH_BYTES, { adapted: true });
  if (!passlib || !salt || !hash) {
    return malformed("not a PBKDF2 hash ($pbkdf2-sha256$i=…$salt$hash, or passlib's $pbkdf2-sha256$rounds$salt$hash)");
  }
  return pbkdf2Hash(text, passlib[1] as string, Number(passlib[2]), salt, hash, `pbkdf2-${passlib[1]}`);
}

function django(text: string): Understood | Refusal {
  const m = DJANGO.exec(text);
  const hash = m && unbase64(m[3] as string, MAX_HASH_BYTES, { padded: true });
  if (!m || !hash) return malformed('not a Django hash (pbkdf2_sha256$iterations$salt$hash, the hash in base64)');
  // Django hashes with the salt's text as it is (UTF-8).
  return pbkdf2Hash(text, 'sha256', Number(m[1]), Buffer.from(m[2] as string, 'utf8'), hash, 'pbkdf2_sha256');
}

function sha512Crypt(text: string): Understood | Refusal {
  const m = SHA512_CRYPT.exec(text);
  if (!m) return malformed('not a sha512-crypt hash ($6$[rounds=N$]salt$hash, a salt of at most 16 characters)');
  const rounds = m[1] === undefined ? 5000 : Number(m[1]);
  if (rounds < SHA512_CRYPT_MIN_ROUNDS || /^0/.test(m[1] ?? '')) {
    return malformed(`sha512-crypt: rounds must be at least ${SHA512_CRYPT_MIN_ROUNDS}, written without leading zeros`);
  }
  if (rounds > SHA512_CRYPT_MAX_ROUNDS) {
    return tooCostly(`sha512-crypt: ${rounds} rounds are over the most accepted (${SHA512_CRYPT_MAX_ROUNDS})`);
  }
  return {
    ok: true,
    stored: text,
    matches: async (password) => {
      if (Buffer.byteLength(password) > SHA512_CRYPT_MAX_PASSWORD_BYTES) return false;
      const { verify } = await import('unixcrypt');
      return verify(password, text);
    },
  };
}

/** A Firebase scrypt hash in the form it is stored in (made by `acceptImportedHash`). */
function firebase(text: string): Understood | Refusal {
  const m = FIREBASE.exec(text);
  const signerKey = m && unbase64(m[3] as string, MAX_HASH_BYTES);
  const separator = m && unbase64(m[4] as string, MAX_SALT_BYTES);
  const salt = m && unbase64(m[5] as string, MAX_SALT_BYTES);
  const hash = m && unbase64(m[6] as string, MAX_HASH_BYTES);
  if (!m || !signerKey || !separator || !salt || !hash) return malformed('not a stored firebase-scrypt hash');
  return firebaseHash({ signerKey, separator, salt, hash, rounds: Number(m[1]), memCost: Number(m[2]) });
}

interface FirebaseParts {
  signerKey: Buffer;
  separator: Buffer;
  salt: Buffer;
  hash: Buffer;
  rounds: number;
  memCost: number;
}

/**
 * Firebase Authentication's modified scrypt (github.com/firebase/scrypt): the key is scrypt(password, salt ‖ salt
 * separator, N = 2^memCost, r = rounds, p = 1), and the hash is the project's signer key encrypted with it in
 * AES-256-CTR from a zero counter. Only the key's first 32 bytes are used, which scrypt computes alone.
 */
function firebaseHash(parts: FirebaseParts): Understood | Refusal {
  const { signerKey, separator, salt, hash, rounds, memCost } = parts;
  if (!Number.isInteger(rounds) || !Number.isInteger(memCost) || rounds < 1 || memCost < 1) {
    return malformed('firebase-scrypt: rounds and memCost must be whole numbers, at least 1');
  }
  if (rounds > FIREBASE_MAX_ROUNDS || memCost > FIREBASE_MAX_MEM_COST) {
    return tooCostly(`firebase-scrypt: rounds ${rounds} and memCost ${memCost} must be at most 8 and 14`);
  }
  if (hash.length < MIN_HASH_BYTES || hash.length !== signerKey.length) {
    return malformed(`firebase-scrypt: the hash must be as long as the signer key, at least ${MIN_HASH_BYTES} bytes`);
  }
  const stored =
    `${FIREBASE_PREFIX}r=${rounds},m=${memCost}$${base64(signerKey)}$${base64(separator)}$` +
    `${base64(salt)}$${base64(hash)}`;
  return {
    ok: true,
    stored,
    matches: async (password) => {
      const cost = { ln: memCost, r: rounds, p: 1 };
      const key = await scryptKey(password, Buffer.concat([salt, separator]), 32, cost);
      const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
      return same(hash, Buffer.concat([cipher.update(signerKey), cipher.final()]));
    },
  };
}

/** Reads a hash string by its scheme. */
function read(text: string): Understood | Refusal {
  if (text.startsWith('$2')) return bcrypt(text);
  if (text.startsWith('$argon2')) return argon2(text);
  if (text.startsWith('$scrypt$')) return scryptHash(text);
  if (text.startsWith('$pbkdf2-')) return pbkdf2Phc(text);
  if (text.startsWith('pbkdf2_sha256$')) return django(text);
  if (text.startsWith('$6$')) return sha512Crypt(text);
  if (text.startsWith(FIREBASE_PREFIX)) return firebase(text);
  return malformed(`not a password hash of a kind accepted: ${KINDS}`);
}

/** The form to store an imported hash in, or why it is refused (message names the problem, never echoes the hash). */
export function acceptImportedHash(given: ImportedHash, config: HashConfig | undefined): Accepted {
  if (typeof given === 'string') {
    // The stored form of a Firebase hash is ours to make (it holds the project's signer key): none is taken as given.
    if (given.startsWith(FIREBASE_PREFIX)) return malformed(`not a password hash of a kind accepted: ${KINDS}`);
    const hash = read(given);
    return hash.ok ? { ok: true, stored: hash.stored } : hash;
  }
  if (!config) return malformed("a firebase-scrypt hash needs the batch's hashConfig (the project's hash parameters)");
  // Base64 as `firebase auth:export` and the Firebase console write it (padded).
  const signerKey = unbase64(config.signerKey, MAX_HASH_BYTES, { padded: true });
  const separator = unbase64(config.saltSeparator, MAX_SALT_BYTES, { padded: true });
  if (!signerKey || signerKey.length === 0 || !separator) {
    return malformed(`hashConfig: signerKey (at most ${MAX_HASH_BYTES} bytes) and saltSeparator must be base64`);
  }
  const salt = unbase64(given.salt, MAX_SALT_BYTES, { padded: true });
  const hash = unbase64(given.hash, MAX_HASH_BYTES, { padded: true });
  if (!salt || !hash)
    return malformed(`firebase-scrypt: hash and salt (at most ${MAX_SALT_BYTES} bytes) must be base64`);
  const made = firebaseHash({ signerKey, separator, salt, hash, rounds: config.rounds, memCost: config.memCost });
  return made.ok ? { ok: true, stored: made.stored } : made;
}

/**
 * Whether `password`, exactly as typed, matches a hash stored by `acceptImportedHash`: the systems these hashes come
 * from hashed the password as it was typed, with no normalisation. False for anything malformed or beyond the bounds,
 * and when the check itself fails (a native addon that cannot load on this system); never throws.
 */
export async function verifyImportedHash(password: string, stored: string): Promise<boolean> {
  const hash = read(stored);
  if (!hash.ok) return false;
  try {
    return (await hash.matches(password)) === true;
  } catch {
    return false;
  }
}
