import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { normalizePassword as normalize } from '../../contract/passwords.js';
import { randomBase62 } from '../clock.js';
import { readScrypt, scryptKey, scryptOptions, verifyImportedHash } from './imported-hashes.js';

/** scrypt cost as stored in a hash: N = 2^ln, block size r, parallelism p. */
export interface ScryptCost {
  ln: number;
  r: number;
  p: number;
}

/** OWASP's scrypt recommendation (Password Storage Cheat Sheet): N=2^17, r=8, p=1 — 128 MiB per hash. */
export const PASSWORD_COST: ScryptCost = { ln: 17, r: 8, p: 1 };

/**
 * For generated passwords only. Stretching protects guessable secrets; a generated password has 143 random bits, so
 * no amount of guessing finds it and a cheap cost loses nothing (the same reasoning lets API keys use SHA-256).
 */
export const GENERATED_PASSWORD_COST: ScryptCost = { ln: 10, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** The platform's own hash: 16 bytes of salt and a 32-byte key, in unpadded base64 (22 and 43 characters). */
const OWN = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;

function encode(cost: ScryptCost, salt: Buffer, key: Buffer): string {
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(key)}`;
}

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  return scryptKey(normalize(password), salt, KEY_LENGTH, cost);
}

/** The PHC string `$scrypt$ln=17,r=8,p=1$<salt>$<key>` of a password (off the event loop). */
export async function hashPassword(password: string, cost: ScryptCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  return encode(cost, salt, await derive(password, salt, cost));
}

/** `hashPassword`, blocking: for one-off setup (`plat local init`), never on a request path. */
export function hashPasswordSync(password: string, cost: ScryptCost = PASSWORD_COST): string {
  const salt = randomBytes(SALT_LENGTH);
  return encode(cost, salt, scryptSync(normalize(password), salt, KEY_LENGTH, scryptOptions(cost)));
}

/**
 * Whether `password` matches `stored`: the platform's own hash, or one imported from another system (docs/migrate.md,
 * imported-hashes.ts). False for anything malformed or beyond the bounds (so a bad row cannot stall us); never throws.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (!stored.startsWith('$scrypt$')) return verifyImportedHash(password, stored);
  const hash = readScrypt(stored);
  if ('ok' in hash) return false;
  const { key, salt, cost } = hash;
  try {
    const matches = async (typed: string) => {
      const actual = await scryptKey(typed, salt, key.length, cost);
      return actual.length === key.length && timingSafeEqual(actual, key);
    };
    // The platform hashes the password in NFKC. A `$scrypt$` hash at another cost may also have been imported, made
    // from the password as it was typed: when that differs from its NFKC form, it is tried too (never for a hash at the
    // platform's cost, so a typed password cannot double the work of every sign-in). It never matches a hash of the
    // platform's that NFKC missed (NFKC of the NFKC form is itself), so it can only let in the imported hash's own.
    const normal = normalize(password);
    if (await matches(normal)) return true;
    return normal !== password && !ownAt(stored, PASSWORD_COST) && (await matches(password));
  } catch {
    return false;
  }
}

/** Whether `stored` is the platform's own scrypt at `cost`, with its salt and key lengths. */
function ownAt(stored: string, cost: ScryptCost): boolean {
  const m = OWN.exec(stored);
  return m !== null && Number(m[1]) === cost.ln && Number(m[2]) === cost.r && Number(m[3]) === cost.p;
}

/**
 * Whether a hash that just matched should be replaced by a fresh one of the platform's: true unless it is the
 * platform's own scrypt at PASSWORD_COST, or at GENERATED_PASSWORD_COST when the password was not imported (a generated
 * password's). So an imported hash of any kind, `$scrypt$` at any other cost included, is replaced at the first
 * successful sign-in.
 */
export function needsRehash(stored: string, imported: boolean): boolean {
  if (ownAt(stored, PASSWORD_COST)) return false;
  return imported || !ownAt(stored, GENERATED_PASSWORD_COST);
}

let dummy: Promise<string> | undefined;

/**
 * Spends the time of one real verification and answers false: used when the account does not exist (or has no
 * password) so that the answer's timing does not tell whether an e-mail is registered.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummy ??= hashPassword(randomBase62(24));
  await verifyPassword(password, await dummy);
  return false;
}

/** A new random password: 24 base62 characters (143 bits), shown once. */
export function generatePassword(): string {
  return randomBase62(24);
}
