import { randomBytes } from 'node:crypto';
import { hashSecret } from './api-keys.js';

/** A new opaque secret (256 random bits, base64url) and the SHA-256 hash that is all the database keeps. */
export function newOpaqueSecret(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: hashSecret(secret) };
}

/** The stored form of an opaque secret (codes, refresh tokens, device codes, tickets). */
export const hashOpaque = hashSecret;
