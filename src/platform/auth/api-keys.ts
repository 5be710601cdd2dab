import { hash, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { KeyEnvironment } from '../../contract/api-keys.js';
import { randomBase62 } from '../clock.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^plat_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

/** Six base62 characters of CRC-32: lets anyone tell a mistyped key from a revoked one without a lookup. */
function checksum(random: string): string {
  let n = crc32(random);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** A new secret `plat_<env>_<32 base62><6 checksum>` (190 random bits). */
export function generateApiKey(environment: KeyEnvironment): string {
  const random = randomBase62(32);
  return `plat_${environment}_${random}${checksum(random)}`;
}

/** The environment of a well-formed key with a valid checksum, else undefined. */
export function parseApiKey(secret: string): { environment: KeyEnvironment } | undefined {
  const m = KEY_PATTERN.exec(secret);
  if (!m || checksum(m[2] as string) !== m[3]) return undefined;
  return { environment: m[1] as KeyEnvironment };
}

/**
 * The stored form of a secret. The secret has 190 random bits, so a fast hash is enough. (One call: a `Hash` object
 * made and fed for each request's key cost more than the hash itself.)
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time equality of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** What lists show of a key: `plat_live_` plus four characters, and the last four. */
export function displayParts(secret: string): { prefix: string; last4: string } {
  const env = secret.startsWith('plat_live_') ? 'plat_live_' : 'plat_test_';
  return { prefix: secret.slice(0, env.length + 4), last4: secret.slice(-4) };
}
