import { devicesStatements } from './auth-devices.js';
import { grantsStatements } from './auth-grants.js';
import type { Db } from './db.js';
import { SEALED, type SecretBox } from './secret-box.js';

export type { DeviceStatus, StoredDeviceCode } from './auth-devices.js';
export type {
  NewAuthorizationCode,
  RedeemedGrant,
  StoredAuthorizationCode,
  StoredRefreshToken,
} from './auth-grants.js';

/** A persisted signing key pair, as JWK JSON (the private key sealed at rest, given in clear here). */
export interface StoredSigningKey {
  kid: string;
  alg: string;
  privateJwk: string;
  publicJwk: string;
  createdAt: string;
}

/** A failed-sign-in counter (per account e-mail, or per client address). */
export interface LoginAttempts {
  failures: number;
  lastFailureAt: string;
  lockedUntil: string | null;
}

/**
 * Sign-in state — signing keys, login tickets, failed-attempt counters — its SQL in one place (codes and refresh tokens
 * in auth-grants.ts, devices in auth-devices.ts). Every secret (code, refresh token, device code, ticket) is stored only
 * as its SHA-256 hash; each is redeemed by one compare-and-set UPDATE … RETURNING, so of N racing requests exactly
 * one wins. The signing keys' private halves are kept sealed (store/secret-box.ts).
 */
export function authStore(db: Db, secrets: SecretBox) {
  const keys = db.prepare<[], StoredSigningKey>(
    `SELECT kid, alg, private_jwk AS privateJwk, public_jwk AS publicJwk, created_at AS createdAt
     FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid`,
  );
  const insertKey = db.prepare(
    `INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at)
     VALUES (@kid, @alg, @privateJwk, @publicJwk, @createdAt)`,
  );

  const retireKeys = db.prepare('UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL');

  const insertTicket = db.prepare(
    'INSERT INTO login_tickets (ticket_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
  );
  const redeemTicket = db.prepare<[string, string, string], { user_id: string }>(
    `UPDATE login_tickets SET used_at = ? WHERE ticket_hash = ? AND used_at IS NULL AND expires_at > ?
     RETURNING user_id`,
  );
  const purgeTickets = db.prepare('DELETE FROM login_tickets WHERE expires_at < ?');

  const attempts = db.prepare<[string], LoginAttempts>(
    'SELECT failures, last_failure_at AS lastFailureAt, locked_until AS lockedUntil FROM login_attempts WHERE key = ?',
  );
  const putAttempts = db.prepare(
    `INSERT INTO login_attempts (key, failures, last_failure_at, locked_until)
     VALUES (@key, @failures, @lastFailureAt, @lockedUntil)
     ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, last_failure_at = excluded.last_failure_at,
       locked_until = excluded.locked_until`,
  );
  const clearAttempts = db.prepare('DELETE FROM login_attempts WHERE key = ?');

  const grants = grantsStatements(db);
  const devices = devicesStatements(db);
  return {
    ...grants,
    ...devices,
    /** The signing keys in use, newest first. */
    signingKeys: () =>
      keys.all().map((k) => ({ ...k, privateJwk: secrets.open(k.privateJwk, SEALED.signingKey(k.kid)) })),
    /** Retires every signing key in use (a new one is made on next use); how many. */
    retireSigningKeys: (now: string) => retireKeys.run(now).changes,
    insertSigningKey: (k: StoredSigningKey) =>
      void insertKey.run({ ...k, privateJwk: secrets.seal(k.privateJwk, SEALED.signingKey(k.kid)) }),

    insertLoginTicket: (hash: string, userId: string, now: string, expiresAt: string) =>
      void insertTicket.run(hash, userId, now, expiresAt),
    /** Uses a login ticket once (compare-and-set); the user it was issued to, or undefined. */
    redeemLoginTicket: (hash: string, now: string) => redeemTicket.get(now, hash, now)?.user_id,

    loginAttempts: (key: string) => attempts.get(key),
    putLoginAttempts: (key: string, a: LoginAttempts) => void putAttempts.run({ key, ...a }),
    clearLoginAttempts: (key: string) => void clearAttempts.run(key),

    /** Forgets codes, device codes and tickets that expired before `before` (kept a while for reuse detection). */
    purgeExpired: (before: string) => {
      grants.purgeCodes(before);
      devices.purgeDevices(before);
      purgeTickets.run(before);
    },
  };
}
