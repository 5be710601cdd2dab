import type { Db } from './db.js';

/**
 * Sign-in: signing keys, authorization codes, refresh tokens, device codes, login tickets, failed-attempt counters.
 * Every secret (code, refresh token, device code, ticket) is stored only as its SHA-256 hash; each is redeemed by one
 * compare-and-set UPDATE … RETURNING, so of N racing requests exactly one wins.
 */
export const SCHEMA = `
CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  alg TEXT NOT NULL,
  private_jwk TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at TEXT NOT NULL,
  retired_at TEXT
);
CREATE TABLE authorization_codes (
  code_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  scopes TEXT NOT NULL,
  user_id TEXT NOT NULL,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  ip_address TEXT,
  user_agent TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT,
  session_id TEXT
);
CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at);
CREATE TABLE refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  client_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);
CREATE TABLE device_codes (
  device_code_hash TEXT PRIMARY KEY,
  user_code TEXT NOT NULL UNIQUE,
  client_id TEXT NOT NULL,
  requested_scope TEXT,
  requested_org TEXT,
  status TEXT NOT NULL,
  user_id TEXT,
  org_id TEXT,
  scopes TEXT,
  ip_address TEXT,
  user_agent TEXT,
  poll_interval INTEGER NOT NULL,
  last_polled_at TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  session_id TEXT
);
CREATE INDEX device_codes_expiry ON device_codes (expires_at);
CREATE TABLE login_tickets (
  ticket_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE TABLE login_attempts (
  key TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  last_failure_at TEXT NOT NULL,
  locked_until TEXT
);
`;

/** A persisted signing key pair, as JWK JSON. */
export interface StoredSigningKey {
  kid: string;
  alg: string;
  privateJwk: string;
  publicJwk: string;
  createdAt: string;
}

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
}

/** A stored authorization code (for telling why a redemption failed). */
export interface StoredAuthorizationCode extends NewAuthorizationCode {
  usedAt: string | null;
  sessionId: string | null;
}

/** What a redemption returns: the sign-in the code carries. */
export type RedeemedGrant = Pick<NewAuthorizationCode, 'scopes' | 'userId' | 'orgId' | 'ipAddress' | 'userAgent'>;

/** A stored refresh token. */
export interface StoredRefreshToken {
  sessionId: string;
  clientId: string;
  scopes: string[];
  usedAt: string | null;
}

/** The states of a device authorization. */
export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'redeemed';

/** A stored device authorization (RFC 8628). */
export interface StoredDeviceCode {
  deviceCodeHash: string;
  userCode: string;
  clientId: string;
  requestedScope: string | null;
  requestedOrg: string | null;
  status: DeviceStatus;
  userId: string | null;
  orgId: string | null;
  scopes: string[] | null;
  ipAddress: string | null;
  userAgent: string | null;
  pollInterval: number;
  lastPolledAt: string | null;
  createdAt: string;
  expiresAt: string;
  sessionId: string | null;
}

/** A failed-sign-in counter (per account e-mail, or per client address). */
export interface LoginAttempts {
  failures: number;
  lastFailureAt: string;
  lockedUntil: string | null;
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
};

type DeviceRow = {
  device_code_hash: string;
  user_code: string;
  client_id: string;
  requested_scope: string | null;
  requested_org: string | null;
  status: DeviceStatus;
  user_id: string | null;
  org_id: string | null;
  scopes: string | null;
  ip_address: string | null;
  user_agent: string | null;
  poll_interval: number;
  last_polled_at: string | null;
  created_at: string;
  expires_at: string;
  session_id: string | null;
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
  };
}

function toDevice(r: DeviceRow): StoredDeviceCode {
  return {
    deviceCodeHash: r.device_code_hash,
    userCode: r.user_code,
    clientId: r.client_id,
    requestedScope: r.requested_scope,
    requestedOrg: r.requested_org,
    status: r.status,
    userId: r.user_id,
    orgId: r.org_id,
    scopes: r.scopes === null ? null : (JSON.parse(r.scopes) as string[]),
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
    pollInterval: r.poll_interval,
    lastPolledAt: r.last_polled_at,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    sessionId: r.session_id,
  };
}

/** Sign-in state: its SQL in one place. */
export function authStore(db: Db) {
  const keys = db.prepare<[], StoredSigningKey>(
    `SELECT kid, alg, private_jwk AS privateJwk, public_jwk AS publicJwk, created_at AS createdAt
     FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid`,
  );
  const insertKey = db.prepare(
    `INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at)
     VALUES (@kid, @alg, @privateJwk, @publicJwk, @createdAt)`,
  );

  const insertCode = db.prepare(
    `INSERT INTO authorization_codes (code_hash, client_id, redirect_uri, code_challenge, scopes, user_id, org_id,
       ip_address, user_agent, created_at, expires_at)
     VALUES (@codeHash, @clientId, @redirectUri, @codeChallenge, @scopes, @userId, @orgId, @ipAddress, @userAgent,
       @createdAt, @expiresAt)`,
  );
  const codeByHash = db.prepare<[string], CodeRow>('SELECT * FROM authorization_codes WHERE code_hash = ?');
  const redeemCode = db.prepare<Record<string, string>, CodeRow>(
    `UPDATE authorization_codes SET used_at = @now
     WHERE code_hash = @hash AND used_at IS NULL AND expires_at > @now
       AND client_id = @clientId AND redirect_uri = @redirectUri AND code_challenge = @challenge
     RETURNING *`,
  );
  const setCodeSession = db.prepare('UPDATE authorization_codes SET session_id = ? WHERE code_hash = ?');
  const purgeCodes = db.prepare('DELETE FROM authorization_codes WHERE expires_at < ?');

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

  const insertDevice = db.prepare(
    `INSERT INTO device_codes (device_code_hash, user_code, client_id, requested_scope, requested_org, status,
       poll_interval, created_at, expires_at)
     VALUES (@deviceCodeHash, @userCode, @clientId, @requestedScope, @requestedOrg, 'pending', @pollInterval,
       @createdAt, @expiresAt)`,
  );
  const deviceByHash = db.prepare<[string], DeviceRow>('SELECT * FROM device_codes WHERE device_code_hash = ?');
  const deviceByUserCode = db.prepare<[string, string], DeviceRow>(
    "SELECT * FROM device_codes WHERE user_code = ? AND status = 'pending' AND expires_at > ?",
  );
  const userCodeTaken = db.prepare<[string], { one: 1 }>('SELECT 1 AS one FROM device_codes WHERE user_code = ?');
  const approveDevice = db.prepare(
    `UPDATE device_codes SET status = 'approved', user_id = @userId, org_id = @orgId, scopes = @scopes,
       ip_address = @ipAddress, user_agent = @userAgent
     WHERE device_code_hash = @hash AND status = 'pending' AND expires_at > @now`,
  );
  const denyDevice = db.prepare(
    "UPDATE device_codes SET status = 'denied' WHERE device_code_hash = ? AND status = 'pending' AND expires_at > ?",
  );
  const pollDevice = db.prepare(
    'UPDATE device_codes SET last_polled_at = @now, poll_interval = @interval WHERE device_code_hash = @hash',
  );
  const redeemDevice = db.prepare<Record<string, string>, DeviceRow>(
    `UPDATE device_codes SET status = 'redeemed'
     WHERE device_code_hash = @hash AND status = 'approved' AND client_id = @clientId AND expires_at > @now
     RETURNING *`,
  );
  const setDeviceSession = db.prepare('UPDATE device_codes SET session_id = ? WHERE device_code_hash = ?');
  const purgeDevices = db.prepare('DELETE FROM device_codes WHERE expires_at < ?');

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

  return {
    /** The signing keys in use, newest first. */
    signingKeys: () => keys.all(),
    insertSigningKey: (k: StoredSigningKey) => void insertKey.run(k),

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

    insertDeviceCode: (d: {
      deviceCodeHash: string;
      userCode: string;
      clientId: string;
      requestedScope: string | null;
      requestedOrg: string | null;
      pollInterval: number;
      createdAt: string;
      expiresAt: string;
    }) => void insertDevice.run(d),
    deviceCodeByHash: (hash: string) => {
      const r = deviceByHash.get(hash);
      return r && toDevice(r);
    },
    /** The pending, unexpired device authorization with this user code. */
    pendingDeviceCode: (userCode: string, now: string) => {
      const r = deviceByUserCode.get(userCode, now);
      return r && toDevice(r);
    },
    /** Whether a user code is in use (by any device authorization still stored). */
    userCodeTaken: (userCode: string) => userCodeTaken.get(userCode) !== undefined,
    /** Approves a pending device authorization (compare-and-set); false when it no longer is pending. */
    approveDeviceCode: (
      hash: string,
      grant: { userId: string; orgId: string; scopes: string[]; ipAddress: string | null; userAgent: string | null },
      now: string,
    ) => approveDevice.run({ ...grant, scopes: JSON.stringify(grant.scopes), hash, now }).changes === 1,
    /** Denies a pending device authorization (compare-and-set). */
    denyDeviceCode: (hash: string, now: string) => denyDevice.run(hash, now).changes === 1,
    /** Records a poll and the interval the client must keep from now on. */
    recordDevicePoll: (hash: string, now: string, interval: number) => void pollDevice.run({ hash, now, interval }),
    /** Marks an approved device authorization of `clientId` redeemed (compare-and-set); its grant, or undefined. */
    redeemDeviceCode: (hash: string, clientId: string, now: string) => {
      const r = redeemDevice.get({ hash, clientId, now });
      return r && toDevice(r);
    },
    setDeviceSession: (hash: string, sessionId: string) => void setDeviceSession.run(sessionId, hash),

    insertLoginTicket: (hash: string, userId: string, now: string, expiresAt: string) =>
      void insertTicket.run(hash, userId, now, expiresAt),
    /** Uses a login ticket once (compare-and-set); the user it was issued to, or undefined. */
    redeemLoginTicket: (hash: string, now: string) => redeemTicket.get(now, hash, now)?.user_id,

    loginAttempts: (key: string) => attempts.get(key),
    putLoginAttempts: (key: string, a: LoginAttempts) => void putAttempts.run({ key, ...a }),
    clearLoginAttempts: (key: string) => void clearAttempts.run(key),

    /** Forgets codes, device codes and tickets that expired before `before` (kept a while for reuse detection). */
    purgeExpired: (before: string) => {
      purgeCodes.run(before);
      purgeDevices.run(before);
      purgeTickets.run(before);
    },
  };
}
