// Password hashes as an import sends them (docs/migrate.md, "The hashes plat verifies"; docs/api.md, "Imported
// passwords"): the forms the platform verifies, the conversions of other systems' forms into them, and the care that
// keeps them out of every message. PHC strings (https://github.com/P-H-C/phc-string-format/blob/master/phc-sf-spec.md)
// are written with PHC's B64: standard base64 without padding.
import type { UserBatchItem } from '../../contract/users.js';

/** How each form the platform verifies begins. */
const HASH_PREFIXES = [
  '$2a$',
  '$2b$',
  '$2y$',
  '$argon2id$',
  '$argon2i$',
  '$scrypt$',
  '$pbkdf2-sha256$',
  '$pbkdf2-sha512$',
  'pbkdf2_sha256$',
  '$6$',
] as const;

/** Those forms, as messages name them. */
export const HASH_FORMS =
  'bcrypt $2a$, $2b$ or $2y$; PHC $argon2id$, $argon2i$, $scrypt$, $pbkdf2-sha256$ or $pbkdf2-sha512$; ' +
  'Django pbkdf2_sha256$; sha512-crypt $6$';

/**
 * Why a hash string cannot be sent, or undefined: it must start as one of the forms the platform verifies (a password
 * put there by mistake, in clear, is not sent), with no spaces or control characters. The platform checks the rest.
 */
export function hashProblem(value: string): string | undefined {
  if (/[\s\p{Cc}]/u.test(value)) return 'a hash has no spaces, line breaks or control characters';
  if (!HASH_PREFIXES.some((p) => value.startsWith(p))) return `not a hash plat verifies (${HASH_FORMS})`;
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** The bytes of base64 text, standard or URL-safe, padded or not; undefined when it is not base64. */
export function base64Bytes(text: string): Buffer | undefined {
  if (!BASE64.test(text) && !BASE64URL.test(text)) return undefined;
  const bare = text.replace(/=+$/, '');
  if (bare.length % 4 === 1) return undefined;
  return Buffer.from(bare.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/**
 * Base64 text (standard or URL-safe, padded or not) as standard base64, padded — as Firebase writes it, and the only
 * alphabet the platform reads (docs/api.md, "Imported passwords") —; undefined when it is not base64. Sent so, a
 * URL-safe value fails no row at the server.
 */
export function standardBase64(text: string): string | undefined {
  return base64Bytes(text)?.toString('base64');
}

/** Text in one of the encodings exports name (`base64`, `hex`, `utf8`) as bytes; undefined when it is not that. */
export function bytesOf(text: string, encoding: string): Buffer | undefined {
  if (encoding === 'utf8') return Buffer.from(text, 'utf8');
  if (encoding === 'hex') return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
  if (encoding === 'base64') return base64Bytes(text);
  return undefined;
}

/** Bytes in PHC's B64: standard base64 without padding. */
export const phcB64 = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');

/** A PBKDF2 hash as PHC writes it: `$pbkdf2-sha256$i=ITERATIONS$SALT$HASH` (the key length is the hash's). */
export function pbkdf2Phc(digest: 'sha256' | 'sha512', iterations: number, salt: Buffer, hash: Buffer): string {
  return `$pbkdf2-${digest}$i=${iterations}$${phcB64(salt)}$${phcB64(hash)}`;
}

/**
 * A scrypt hash as PHC writes it: `$scrypt$ln=LOG2(N),r=R,p=P$SALT$HASH` (the key length is the hash's); undefined
 * when the cost is no power of two, which that form cannot say.
 */
export function scryptPhc(cost: number, blockSize: number, parallelization: number, salt: Buffer, hash: Buffer) {
  const ln = Math.log2(cost);
  if (!Number.isInteger(ln) || ln < 1) return undefined;
  return `$scrypt$ln=${ln},r=${blockSize},p=${parallelization}$${phcB64(salt)}$${phcB64(hash)}`;
}

/** The texts of an item's hash that no message may show: the hash string, or Firebase's hash and salt. */
function hashTexts(item: UserBatchItem): string[] {
  const hash = item.passwordHash;
  if (hash === undefined) return [];
  const texts = typeof hash === 'string' ? [hash] : [hash.hash, hash.salt];
  // A text too short to be told from words (an empty salt) is left alone: it would garble the message.
  return texts.filter((t) => t.length >= 8);
}

/** A message (the API's, about an item) with any text of the item's hash replaced by `[hash]`. */
export function withoutHashes(message: string, item: UserBatchItem | undefined): string {
  if (!item) return message;
  return hashTexts(item).reduce((m, t) => m.split(t).join('[hash]'), message);
}
