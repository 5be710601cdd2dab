// Auth0's password hashes as the hashes plat verifies (docs/migrate.md, "Auth0"). The forms are Auth0's bulk-import
// schema's, "Custom password hash" and "Supported hash algorithms"
// (https://auth0.com/docs/manage-users/user-migration/bulk-user-import-database-schema-and-examples):
//   password_hash          bcrypt, `$2a$` or `$2b$`
//   custom_password_hash   { algorithm, hash: { value, encoding, digest, key }, salt: { value, encoding, position },
//                            password: { encoding }, keylen, cost, blockSize, parallelization }
// argon2 and bcrypt values are already the strings plat takes; pbkdf2's is a PHC string whose id names the digest
// (`$pbkdf2-sha512$i=100000,l=64$SALT$HASH`, `i` and `l` defaulting to 100000 and 64), rewritten in PHC's own `i=`
// form; scrypt's parts (hex or base64 hash, salt, keylen, cost, blockSize, parallelization) make a PHC `$scrypt$`.
// md4, md5, sha1, sha256, sha512, hmac and ldap are refused: plat does not verify them.
import { base64Bytes, bytesOf, pbkdf2Phc, scryptPhc } from '../hashes.js';
import { type Fields, isFields, text, WITHOUT_HASH } from './fields.js';

/** A user's hash as plat takes it (none when they have none), or why it cannot be imported. */
export type Auth0Hash = { hash?: string } | { problem: string };

const BCRYPT = /^\$2[aby]\$/;

/** The hash of a user of any Auth0 file: the bulk-import schema's two fields, or a support export's `passwordHash`. */
export function auth0Hash(user: Fields): Auth0Hash {
  const custom = user.custom_password_hash;
  if (custom !== undefined && custom !== null) return customHash(custom);
  const field = user.password_hash !== undefined ? 'password_hash' : 'passwordHash';
  const plain = text(user[field]);
  if (plain === undefined) return {};
  return BCRYPT.test(plain) ? { hash: plain } : { problem: `${field}: not bcrypt ($2a$, $2b$ or $2y$)` };
}

/** Digest names Auth0 takes in a PBKDF2 PHC id (Node.js's names, aliases included), by the digest plat verifies. */
const DIGESTS: Record<string, 'sha256' | 'sha512'> = {
  sha256: 'sha256',
  'rsa-sha256': 'sha256',
  sha256withrsaencryption: 'sha256',
  sha512: 'sha512',
  'rsa-sha512': 'sha512',
  sha512withrsaencryption: 'sha512',
};

/** The algorithms of Auth0's schema that plat does not verify. */
const REFUSED = new Set(['hmac', 'ldap', 'md4', 'md5', 'sha1', 'sha256', 'sha512']);

const problem = (message: string): Auth0Hash => ({ problem: `custom_password_hash: ${message}` });

function customHash(custom: unknown): Auth0Hash {
  if (!isFields(custom)) return problem('expected an object');
  const algorithm = text(custom.algorithm) ?? '(none)';
  const hash = isFields(custom.hash) ? custom.hash : {};
  const value = text(hash.value);
  const password = isFields(custom.password) ? text(custom.password.encoding) : undefined;
  if (REFUSED.has(algorithm)) {
    return problem(
      `plat does not verify ${algorithm} hashes (it verifies bcrypt, argon2, pbkdf2 with sha256 or sha512, and ` +
        `scrypt): ${WITHOUT_HASH}`,
    );
  }
  if (password !== undefined && password !== 'utf8') {
    return problem(`password.encoding ${password}: plat verifies passwords as UTF-8 (utf8)`);
  }
  if (value === undefined) return problem('hash.value is missing');
  const encoding = text(hash.encoding);
  if (algorithm !== 'scrypt' && encoding !== undefined && encoding !== 'utf8') {
    return problem(`hash.encoding must be utf8 for ${algorithm}`);
  }
  switch (algorithm) {
    case 'bcrypt':
      if (custom.salt !== undefined) return problem(`a bcrypt hash with a salt of its own: ${WITHOUT_HASH}`);
      return BCRYPT.test(value) ? { hash: value } : problem('a bcrypt hash starts with $2a$, $2b$ or $2y$');
    case 'argon2':
      if (value.startsWith('$argon2id$') || value.startsWith('$argon2i$')) return { hash: value };
      return problem(`plat verifies argon2id and argon2i ($argon2id$, $argon2i$), not this one: ${WITHOUT_HASH}`);
    case 'pbkdf2':
      return pbkdf2(value);
    case 'scrypt':
      return scrypt(custom, value, encoding);
    default:
      return problem(`unknown algorithm ${algorithm}`);
  }
}

/** `$pbkdf2-DIGEST$i=…,l=…$SALT$HASH` (parameters optional) in PHC's `i=` form. */
function pbkdf2(value: string): Auth0Hash {
  const parts = /^\$pbkdf2-([A-Za-z0-9-]+)\$(?:([^$]*=[^$]*)\$)?([^$]*)\$([^$]+)$/.exec(value);
  if (!parts) return problem('a pbkdf2 hash is a PHC string: $pbkdf2-DIGEST$i=…,l=…$SALT$HASH');
  const [, id, params, saltText, hashText] = parts as unknown as [string, string, string | undefined, string, string];
  const digest = DIGESTS[id.toLowerCase()];
  if (!digest) return problem(`plat verifies pbkdf2 with sha256 or sha512, not ${id}: ${WITHOUT_HASH}`);
  const given = new Map((params ?? '').split(',').map((p) => p.split('=') as [string, string]));
  const [i, l] = [Number(given.get('i') ?? 100000), Number(given.get('l') ?? 64)];
  if (!Number.isInteger(i) || i < 1 || !Number.isInteger(l) || l < 1) return problem('i and l are whole numbers');
  const [salt, hash] = [base64Bytes(saltText), base64Bytes(hashText)];
  if (!salt || !hash) return problem('the salt and the hash of a pbkdf2 hash are base64');
  if (hash.length !== l) return problem(`l=${l} is not the length of the hash (${hash.length} bytes)`);
  return { hash: pbkdf2Phc(digest, i, salt, hash) };
}

/** Auth0's scrypt parts as a PHC `$scrypt$` string. */
function scrypt(custom: Fields, value: string, encoding: string | undefined): Auth0Hash {
  if (encoding !== 'hex' && encoding !== 'base64') return problem('hash.encoding must be hex or base64 for scrypt');
  const hash = bytesOf(value, encoding);
  if (!hash) return problem(`hash.value is not ${encoding}`);
  const salt = isFields(custom.salt) ? custom.salt : {};
  const saltText = typeof salt.value === 'string' ? salt.value : '';
  const saltBytes = bytesOf(saltText, text(salt.encoding) ?? 'utf8');
  if (!saltBytes) return problem(`salt.value is not ${text(salt.encoding)}`);
  const [keylen, cost, blockSize, parallelization] = [
    custom.keylen,
    custom.cost ?? 16384,
    custom.blockSize ?? 8,
    custom.parallelization ?? 1,
  ];
  const whole = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;
  if (!whole(keylen) || !whole(cost) || !whole(blockSize) || !whole(parallelization)) {
    return problem('keylen, cost, blockSize and parallelization are whole numbers (keylen is required)');
  }
  if (hash.length !== keylen) return problem(`keylen ${keylen} is not the length of the hash (${hash.length} bytes)`);
  const phc = scryptPhc(cost, blockSize, parallelization, saltBytes, hash);
  return phc ? { hash: phc } : problem(`cost ${cost} is not a power of two`);
}
