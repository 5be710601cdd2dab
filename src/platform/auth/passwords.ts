import { randomBytes, type ScryptOptions, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { normalizePassword as normalize } from '../../contract/passwords.js';
import { randomBase62 } from '../clock.js';

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

/** The most memory one verification may take (twice the policy's): a stored hash cannot make us allocate more. */
const MAX_MEMORY = 256 * 1024 * 1024;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d)\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{32,})$/;

function options(cost: ScryptCost): ScryptOptions {
  const n = 2 ** cost.ln;
  // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is below OWASP's cost, so raise it to just above.
  return { N: n, r: cost.r, p: cost.p, maxmem: 128 * n * cost.r + 16 * 1024 * 1024 };
}

function encode(cost: ScryptCost, salt: Buffer, key: Buffer): string {
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(key)}`;
}

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(normalize(password), salt, KEY_LENGTH, options(cost), (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** The PHC string `$scrypt$ln=17,r=8,p=1$<salt>$<key>` of a password (off the event loop). */
export async function hashPassword(password: string, cost: ScryptCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  return encode(cost, salt, await derive(password, salt, cost));
}

/** `hashPassword`, blocking: for one-off setup (`plat local init`), never on a request path. */
export function hashPasswordSync(password: string, cost: ScryptCost = PASSWORD_COST): string {
  const salt = randomBytes(SALT_LENGTH);
  return encode(cost, salt, scryptSync(normalize(password), salt, KEY_LENGTH, options(cost)));
}

/** Whether `password` matches `stored`; false for anything malformed (cost bounded, so a bad row cannot stall us). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = PHC.exec(stored);
  if (!m) return false;
  const cost = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (cost.ln < 1 || cost.r < 1 || cost.p < 1 || 128 * 2 ** cost.ln * cost.r > MAX_MEMORY) return false;
  const expected = Buffer.from(m[5] as string, 'base64');
  const actual = await derive(password, Buffer.from(m[4] as string, 'base64'), cost);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
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
