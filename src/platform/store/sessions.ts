import type { ExpressionBuilder } from 'kysely';
import type { Amr } from '../../contract/mfa.js';
import type { SignInMethod } from '../../contract/sessions.js';
import { amrText, storedAmr } from '../auth/amr.js';
import type { Tables } from './schema.js';
import { andThen, pointRead, type Q, type StoreEnv } from './sql.js';

/**
 * A membership's session cutoff: sessions of the user's other organizations created at or before `cutAt` may no
 * longer act in this one (their own organization's revocation cannot reach them), except `keptSessionId`.
 */
export interface SessionCutoff {
  cutAt: string;
  keptSessionId: string | null;
}

/** A session as stored. Active while `revokedAt` is null and `expiresAt` is null or in the future. */
export interface StoredSession {
  id: string;
  userId: string;
  organizationId: string;
  /** The OAuth client that signed in (`plat-cli`), null for a browser login. */
  clientId: string | null;
  /** How it was signed in. */
  method: SignInMethod;
  /** With what (RFC 8176): the password, a second factor, a passkey, the identity provider. */
  amr: Amr[];
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
  lastActive: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** What sign-in passes to `insert`; `lastActive` defaults to `createdAt`. */
export type NewSession = Omit<StoredSession, 'lastActive' | 'revokedAt'> & { lastActive?: string };

type Row = {
  id: string;
  user_id: string;
  org_id: string;
  client_id: string | null;
  method: SignInMethod;
  amr: string | null;
  ip_address: string | null;
  user_agent: string | null;
  created_at: string;
  last_active: string;
  expires_at: string | null;
  revoked_at: string | null;
};

function toSession(r: Row): StoredSession {
  return {
    id: r.id,
    userId: r.user_id,
    organizationId: r.org_id,
    clientId: r.client_id,
    method: r.method,
    amr: storedAmr(r.amr, r.method),
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
    createdAt: r.created_at,
    lastActive: r.last_active,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
  };
}

/** Whether a session may still be used at `now` (an ISO timestamp). */
export function isActive(s: StoredSession, now: string): boolean {
  return s.revokedAt === null && (s.expiresAt === null || s.expiresAt > now);
}

/** The SQL form of `isActive` at `now`. */
const active = (eb: ExpressionBuilder<Tables, 'sessions'>, now: string) =>
  eb.and([eb('revoked_at', 'is', null), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]);

/** A session by id: every request with an access token reads it. */
const byId = pointRead((q, id: string) => q.selectFrom('sessions').selectAll().where('id', '=', id).$castTo<Row>());

/** A membership's cutoff: read for every request of a user token in another organization than its own. */
const cutoff = pointRead((q, orgId: string, userId: string) =>
  q
    .selectFrom('session_cutoffs')
    .select(['cut_at', 'kept_session_id'])
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId),
);

/** Sign-in sessions, one per login, in the organization signed into: their SQL in one place. */
export function sessionsStore(q: Q, env: StoreEnv) {
  return {
    /** Records a new sign-in (sign-in calls this inside its own transaction). */
    insert: async (s: NewSession): Promise<void> => {
      await q
        .insertInto('sessions')
        .values({
          id: s.id,
          user_id: s.userId,
          org_id: s.organizationId,
          client_id: s.clientId,
          method: s.method,
          amr: amrText(s.amr),
          ip_address: s.ipAddress,
          user_agent: s.userAgent,
          created_at: s.createdAt,
          last_active: s.lastActive ?? s.createdAt,
          expires_at: s.expiresAt,
        })
        .execute();
    },
    /** Any session by id, whatever its organization or state (for access-token and refresh checks). */
    byId: (id: string) => andThen(byId(q, id), (r) => r && toSession(r)),
    /** A session of this user in this organization, in any state. */
    get: async (orgId: string, userId: string, id: string) => {
      const r = await q
        .selectFrom('sessions')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .$castTo<Row>()
        .executeTakeFirst();
      return r && toSession(r);
    },
    /** The user's active sessions in the organization, newest first. */
    listActive: async (orgId: string, userId: string, now: string) => {
      const rows = await q
        .selectFrom('sessions')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .where((eb) => active(eb, now))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .$castTo<Row>()
        .execute();
      return rows.map(toSession);
    },
    /** Moves `lastActive` forward to `now` (never back). */
    touch: (id: string, now: string): Promise<void> =>
      env.sql.bookkeeping(
        q.updateTable('sessions').set({ last_active: now }).where('id', '=', id).where('last_active', '<', now),
      ),
    /** Marks one session revoked; false when it already was. */
    revoke: async (id: string, now: string) => {
      const r = await q
        .updateTable('sessions')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    /** Revokes the user's active sessions in the organization except `keepId`; returns how many. */
    revokeActive: async (orgId: string, userId: string, now: string, keepId: string | null = null) => {
      const r = await q
        .updateTable('sessions')
        .set({ revoked_at: now })
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .where('id', 'is distinct from', keepId)
        .where((eb) => active(eb, now))
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    /** Revokes every session of the user in the organization not yet revoked (expired ones too); returns how many. */
    revokeForUser: async (orgId: string, userId: string, now: string) => {
      const r = await q
        .updateTable('sessions')
        .set({ revoked_at: now })
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    removeForUser: async (orgId: string, userId: string): Promise<void> => {
      await q.deleteFrom('sessions').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
    },
    /** The membership's session cutoff, if its sessions were ever revoked all at once. */
    cutoff: async (orgId: string, userId: string): Promise<SessionCutoff | undefined> => {
      const r = await cutoff(q, orgId, userId);
      return r && { cutAt: r.cut_at, keptSessionId: r.kept_session_id };
    },
    /**
     * Stops every session of the user's other organizations created until `now` from acting in this one, except
     * `keepId` (replacing any earlier cutoff). The membership must exist.
     */
    cutOff: async (orgId: string, userId: string, now: string, keepId: string | null = null): Promise<void> => {
      await q
        .insertInto('session_cutoffs')
        .values({ org_id: orgId, user_id: userId, cut_at: now, kept_session_id: keepId })
        .onConflict((oc) =>
          oc.columns(['org_id', 'user_id']).doUpdateSet((eb) => ({
            cut_at: eb.ref('excluded.cut_at'),
            kept_session_id: eb.ref('excluded.kept_session_id'),
          })),
        )
        .execute();
    },
  };
}
