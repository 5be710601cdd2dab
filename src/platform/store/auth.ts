import type { Amr } from '../../contract/mfa.js';
import { amrText, storedAmr } from '../auth/amr.js';
import { devicesStatements } from './auth-devices.js';
import { grantsStatements } from './auth-grants.js';
import { SEALED } from './secret-box.js';
import type { Q, StoreEnv } from './sql.js';

/**
 * Where a sign-in on the pages stands between two forms (a login ticket): `factor` — the password was right, the
 * second factor is awaited; `enroll` — signed in, but the organization requires a factor the person has yet to enroll;
 * `signed_in` — done, an organization is to be chosen (or was, `orgId`). A ticket of one stage never passes another.
 */
export type TicketStage = 'factor' | 'enroll' | 'signed_in';
export interface TicketState {
  userId: string;
  stage: TicketStage;
  amr: Amr[];
  orgId: string | null;
}

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
export function authStore(q: Q, env: StoreEnv) {
  const { secrets } = env;
  const grants = grantsStatements(q);
  const devices = devicesStatements(q);
  return {
    ...grants,
    ...devices,
    /** The signing keys in use, newest first. */
    signingKeys: async (): Promise<StoredSigningKey[]> => {
      const keys = await q
        .selectFrom('signing_keys')
        .select(['kid', 'alg', 'private_jwk as privateJwk', 'public_jwk as publicJwk', 'created_at as createdAt'])
        .where('retired_at', 'is', null)
        .orderBy('created_at', 'desc')
        .orderBy('kid')
        .execute();
      return keys.map((k) => ({ ...k, privateJwk: secrets.open(k.privateJwk, SEALED.signingKey(k.kid)) }));
    },
    /** Retires every signing key in use (a new one is made on next use); how many. */
    retireSigningKeys: async (now: string) => {
      const r = await q
        .updateTable('signing_keys')
        .set({ retired_at: now })
        .where('retired_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    insertSigningKey: async (k: StoredSigningKey): Promise<void> => {
      await q
        .insertInto('signing_keys')
        .values({
          kid: k.kid,
          alg: k.alg,
          private_jwk: secrets.seal(k.privateJwk, SEALED.signingKey(k.kid)),
          public_jwk: k.publicJwk,
          created_at: k.createdAt,
        })
        .execute();
    },

    insertLoginTicket: async (hash: string, t: TicketState, now: string, expiresAt: string): Promise<void> => {
      await q
        .insertInto('login_tickets')
        .values({
          ticket_hash: hash,
          user_id: t.userId,
          stage: t.stage,
          amr: amrText(t.amr),
          org_id: t.orgId,
          created_at: now,
          expires_at: expiresAt,
        })
        .execute();
    },
    /** Uses a login ticket once (compare-and-set); where the sign-in it carries stands, or undefined. */
    redeemLoginTicket: async (hash: string, now: string): Promise<TicketState | undefined> => {
      const r = await q
        .updateTable('login_tickets')
        .set({ used_at: now })
        .where('ticket_hash', '=', hash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning(['user_id', 'stage', 'amr', 'org_id'])
        .executeTakeFirst();
      if (!r) return undefined;
      return {
        userId: r.user_id,
        stage: r.stage as TicketStage,
        amr: storedAmr(r.amr, 'password'),
        orgId: r.org_id,
      };
    },

    loginAttempts: async (key: string): Promise<LoginAttempts | undefined> =>
      q
        .selectFrom('login_attempts')
        .select(['failures', 'last_failure_at as lastFailureAt', 'locked_until as lockedUntil'])
        .where('key', '=', key)
        .executeTakeFirst(),
    putLoginAttempts: async (key: string, a: LoginAttempts): Promise<void> => {
      await q
        .insertInto('login_attempts')
        .values({ key, failures: a.failures, last_failure_at: a.lastFailureAt, locked_until: a.lockedUntil })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet((eb) => ({
            failures: eb.ref('excluded.failures'),
            last_failure_at: eb.ref('excluded.last_failure_at'),
            locked_until: eb.ref('excluded.locked_until'),
          })),
        )
        .execute();
    },
    clearLoginAttempts: async (key: string): Promise<void> => {
      await q.deleteFrom('login_attempts').where('key', '=', key).execute();
    },

    /** Forgets codes, device codes and tickets that expired before `before` (kept a while for reuse detection). */
    purgeExpired: async (before: string): Promise<void> => {
      await grants.purgeCodes(before);
      await devices.purgeDevices(before);
      await q.deleteFrom('login_tickets').where('expires_at', '<', before).execute();
    },
  };
}
