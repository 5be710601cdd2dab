import type { SignInMethod } from '../../contract/sessions.js';
import type { Db } from './db.js';

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
}

/** A stored authorization code (for telling why a redemption failed). */
export interface StoredAuthorizationCode extends NewAuthorizationCode {
  usedAt: string | null;
  sessionId: string | null;
}

/** What a redemption returns: the sign-in the code carries. */
export type RedeemedGrant = Pick<
  NewAuthorizationCode,
  'scopes' | 'userId' | 'orgId' | 'ipAddress' | 'userAgent' | 'method'
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
  };
}

/**
 * Authorization codes and refresh tokens: their SQL (part of `stores.auth`). Both are stored as SHA-256 hashes and
 * redeemed by compare-and-set.
 */
export function grantsStatements(db: Db) {
  const insertCode = db.prepare(
    `INSERT INTO authorization_codes (code_hash, client_id, redirect_uri, code_challenge, scopes, user_id, org_id,
       ip_address, user_agent, created_at, expires_at, method)
     VALUES (@codeHash, @clientId, @redirectUri, @codeChallenge, @scopes, @userId, @orgId, @ipAddress, @userAgent,
       @createdAt, @expiresAt, @method)`,
  );
  const codeByHash = db.prepare<[string], CodeRow>('SELECT * FROM authorization_codes WHERE code_hash = ?');
  const redeemCode = db.prepare<Record<string, string>, CodeRow>(
    `UPDATE authorization_codes SET used_at = @now
     WHERE code_hash = @hash AND used_at IS NULL AND expires_at > @now
       AND client_id = @clientId AND redirect_uri = @redirectUri AND code_challenge = @challenge
     RETURNING *`,
  );
  const setCodeSession = db.prepare('UPDATE authorization_codes SET session_id = ? WHERE code_hash = ?');

  const insertRefresh = db.prepare(
    `INSERT INTO refresh_tokens (token_hash, session_id, client_id, scopes, created_at)
     VALUES (@tokenHash, @sessionId, @clientId, @scopes, @createdAt)`,
  );
  const refreshByHash = db.prepare<
    [string],
    { session_id: string; client_id: string; scopes: string; used_at: string | null }
  >('SELECT session_id, client_id, scopes, used_at FROM refresh_tokens WHERE token_hash = ?');
  const rotateRefresh = db.prepare<Record<string, string>, { session_id: string; scopes: string }>(
    `UPDATE refresh_tokens SET used_at = @now WHERE token_hash = @hash AND used_at IS NULL AND client_id = @clientId
     RETURNING session_id, scopes`,
  );

  const purgeCodes = db.prepare('DELETE FROM authorization_codes WHERE expires_at < ?');
  return {
    insertCode: (c: NewAuthorizationCode) => void insertCode.run({ ...c, scopes: JSON.stringify(c.scopes) }),
    codeByHash: (hash: string) => {
      const r = codeByHash.get(hash);
      return r && toCode(r);
    },
    /**
     * Marks the code used — one compare-and-set that also checks its client, redirect URI and PKCE challenge — and
     * returns its grant; undefined when it is unknown, used, expired or bound to something else.
     */
    redeemCode: (hash: string, bind: { clientId: string; redirectUri: string; challenge: string }, now: string) => {
      const r = redeemCode.get({ hash, now, ...bind });
      return r && (toCode(r) as RedeemedGrant);
    },
    /** Remembers the session a code's redemption created (so a second use can revoke it). */
    setCodeSession: (hash: string, sessionId: string) => void setCodeSession.run(sessionId, hash),

    insertRefreshToken: (t: {
      tokenHash: string;
      sessionId: string;
      clientId: string;
      scopes: string[];
      now: string;
    }) => void insertRefresh.run({ ...t, scopes: JSON.stringify(t.scopes), createdAt: t.now }),
    refreshTokenByHash: (hash: string): StoredRefreshToken | undefined => {
      const r = refreshByHash.get(hash);
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
    rotateRefreshToken: (hash: string, clientId: string, now: string) => {
      const r = rotateRefresh.get({ hash, clientId, now });
      return r && { sessionId: r.session_id, scopes: JSON.parse(r.scopes) as string[] };
    },

    /** Forgets codes that expired before `before`. */
    purgeCodes: (before: string) => void purgeCodes.run(before),
  };
}
