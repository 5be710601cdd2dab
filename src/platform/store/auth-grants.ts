import type { Amr } from '../../contract/mfa.js';
import type { SignInMethod } from '../../contract/sessions.js';
import { amrText, storedAmr } from '../auth/amr.js';
import type { Q } from './sql.js';

/** What an authorization code grants, fixed when the user signs in. */
export interface NewAuthorizationCode {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  userId: string;
  orgId: string;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
  expiresAt: string;
  /** How the user signed in: the session the code opens says so. */
  method: SignInMethod;
  amr: Amr[];
}

/** A stored authorization code (for telling why a redemption failed). */
export interface StoredAuthorizationCode extends NewAuthorizationCode {
  usedAt: string | null;
  sessionId: string | null;
}

/** What a redemption returns: the sign-in the code carries. */
export type RedeemedGrant = Pick<
  NewAuthorizationCode,
  'scopes' | 'userId' | 'orgId' | 'ipAddress' | 'userAgent' | 'method' | 'amr'
>;

/** A stored refresh token. */
export interface StoredRefreshToken {
  sessionId: string;
  clientId: string;
  scopes: string[];
  usedAt: string | null;
}

type CodeRow = {
  code_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  user_id: string;
  org_id: string;
  ip_address: string | null;
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  session_id: string | null;
  method: SignInMethod;
  amr: string | null;
};

function toCode(r: CodeRow): StoredAuthorizationCode {
  return {
    codeHash: r.code_hash,
    clientId: r.client_id,
    redirectUri: r.redirect_uri,
    codeChallenge: r.code_challenge,
    scopes: JSON.parse(r.scopes) as string[],
    userId: r.user_id,
    orgId: r.org_id,
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
    sessionId: r.session_id,
    method: r.method,
    amr: storedAmr(r.amr, r.method),
  };
}

/**
 * Authorization codes and refresh tokens: their SQL (part of `stores.auth`). Both are stored as SHA-256 hashes and
 * redeemed by compare-and-set.
 */
export function grantsStatements(q: Q) {
  return {
    insertCode: async (c: NewAuthorizationCode): Promise<void> => {
      await q
        .insertInto('authorization_codes')
        .values({
          code_hash: c.codeHash,
          client_id: c.clientId,
          redirect_uri: c.redirectUri,
          code_challenge: c.codeChallenge,
          scopes: JSON.stringify(c.scopes),
          user_id: c.userId,
          org_id: c.orgId,
          ip_address: c.ipAddress,
          user_agent: c.userAgent,
          created_at: c.createdAt,
          expires_at: c.expiresAt,
          method: c.method,
          amr: amrText(c.amr),
        })
        .execute();
    },
    codeByHash: async (hash: string) => {
      const r = await q
        .selectFrom('authorization_codes')
        .selectAll()
        .where('code_hash', '=', hash)
        .$castTo<CodeRow>()
        .executeTakeFirst();
      return r && toCode(r);
    },
    /**
     * Marks the code used — one compare-and-set that also checks its client, redirect URI and PKCE challenge — and
     * returns its grant; undefined when it is unknown, used, expired or bound to something else.
     */
    redeemCode: async (
      hash: string,
      bind: { clientId: string; redirectUri: string; challenge: string },
      now: string,
    ) => {
      const r = await q
        .updateTable('authorization_codes')
        .set({ used_at: now })
        .where('code_hash', '=', hash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .where('client_id', '=', bind.clientId)
        .where('redirect_uri', '=', bind.redirectUri)
        .where('code_challenge', '=', bind.challenge)
        .returningAll()
        .$castTo<CodeRow>()
        .executeTakeFirst();
      return r && (toCode(r) as RedeemedGrant);
    },
    /** Remembers the session a code's redemption created (so a second use can revoke it). */
    setCodeSession: async (hash: string, sessionId: string): Promise<void> => {
      await q.updateTable('authorization_codes').set({ session_id: sessionId }).where('code_hash', '=', hash).execute();
    },

    insertRefreshToken: async (t: {
      tokenHash: string;
      sessionId: string;
      clientId: string;
      scopes: string[];
      now: string;
    }): Promise<void> => {
      await q
        .insertInto('refresh_tokens')
        .values({
          token_hash: t.tokenHash,
          session_id: t.sessionId,
          client_id: t.clientId,
          scopes: JSON.stringify(t.scopes),
          created_at: t.now,
        })
        .execute();
    },
    refreshTokenByHash: async (hash: string): Promise<StoredRefreshToken | undefined> => {
      const r = await q
        .selectFrom('refresh_tokens')
        .select(['session_id', 'client_id', 'scopes', 'used_at'])
        .where('token_hash', '=', hash)
        .executeTakeFirst();
      return (
        r && {
          sessionId: r.session_id,
          clientId: r.client_id,
          scopes: JSON.parse(r.scopes) as string[],
          usedAt: r.used_at,
        }
      );
    },
    /** Marks an unused refresh token of `clientId` used (compare-and-set); its session and scopes, or undefined. */
    rotateRefreshToken: async (hash: string, clientId: string, now: string) => {
      const r = await q
        .updateTable('refresh_tokens')
        .set({ used_at: now })
        .where('token_hash', '=', hash)
        .where('used_at', 'is', null)
        .where('client_id', '=', clientId)
        .returning(['session_id', 'scopes'])
        .executeTakeFirst();
      return r && { sessionId: r.session_id, scopes: JSON.parse(r.scopes) as string[] };
    },

    /** Forgets codes that expired before `before`. */
    purgeCodes: async (before: string): Promise<void> => {
      await q.deleteFrom('authorization_codes').where('expires_at', '<', before).execute();
    },
  };
}
