import type { Permission } from '../../contract/permissions.js';
import type { SsoConfig } from '../../contract/sso.js';
import type { Db } from './db.js';
import { SEALED, type SecretBox } from './secret-box.js';

/** What a sign-in through the identity provider goes on to once the person is known. */
export type SsoContinuation =
  | {
      /** The OAuth authorization request that started it (the CLI's `plat login`): its client gets a code. */
      kind: 'authorize';
      clientId: string;
      redirectUri: string;
      state: string | undefined;
      codeChallenge: string;
      scopes: Permission[] | null;
      ipAddress: string | null;
      userAgent: string | null;
    }
  /** A device waiting for its user code to be approved. */
  | { kind: 'device'; userCode: string; ipAddress: string | null; userAgent: string | null }
  /** `plat sso test`: show what the identity provider sent, sign nobody in. */
  | { kind: 'test'; testId: string };

/** A `plat sso test` sign-in: pending until the identity provider's answer came, then its outcome. */
export interface StoredSsoTest {
  id: string;
  orgId: string;
  status: 'pending' | 'succeeded' | 'failed';
  /** What arrived (succeeded), or the check that failed (failed). */
  result: Record<string, unknown> | null;
  createdAt: string;
  expiresAt: string;
}

/** A sign-in sent to an identity provider: the SAML AuthnRequest's ID, or the OIDC `state`. */
export interface SsoRequest {
  id: string;
  orgId: string;
  protocol: SsoConfig['protocol'];
  continuation: SsoContinuation;
  /** OIDC: the PKCE verifier and the nonce, sealed at rest. */
  secret: { codeVerifier: string; nonce: string } | null;
  createdAt: string;
  expiresAt: string;
}

type RequestRow = {
  id: string;
  org_id: string;
  protocol: SsoConfig['protocol'];
  continuation: string;
  sealed: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
};

/**
 * The state of sign-ins through identity providers: their SQL in one place. Requests are single-use (one
 * compare-and-set redeems one, for its organization only, while it is young enough); an assertion id is recorded
 * once (a second time is a replay); an identity provider's subject is linked to one user per organization.
 */
export function ssoSignInStore(db: Db, secrets: SecretBox) {
  const insertRequest = db.prepare(
    `INSERT INTO sso_requests (id, org_id, protocol, continuation, sealed, created_at, expires_at)
     VALUES (@id, @orgId, @protocol, @continuation, @sealed, @createdAt, @expiresAt)`,
  );
  const redeem = db.prepare<[string, string, string, string], RequestRow>(
    `UPDATE sso_requests SET used_at = ? WHERE id = ? AND org_id = ? AND used_at IS NULL AND expires_at > ?
     RETURNING *`,
  );
  const requestById = db.prepare<[string], RequestRow>('SELECT * FROM sso_requests WHERE id = ?');
  const purgeRequests = db.prepare('DELETE FROM sso_requests WHERE expires_at < ?');
  const recordAssertion = db.prepare(
    'INSERT OR IGNORE INTO sso_assertions (org_id, assertion_id, expires_at) VALUES (?, ?, ?)',
  );
  const purgeAssertions = db.prepare('DELETE FROM sso_assertions WHERE expires_at < ?');
  const identity = db.prepare<[string, string], { user_id: string }>(
    'SELECT user_id FROM sso_identities WHERE org_id = ? AND subject = ?',
  );
  const link = db.prepare(
    `INSERT INTO sso_identities (org_id, subject, user_id, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (org_id, subject) DO UPDATE SET last_seen_at = excluded.last_seen_at`,
  );
  const unlinkUser = db.prepare('DELETE FROM sso_identities WHERE org_id = ? AND user_id = ?');
  const unlinkOrg = db.prepare('DELETE FROM sso_identities WHERE org_id = ?');
  const insertTest = db.prepare(
    "INSERT INTO sso_tests (id, org_id, status, created_at, expires_at) VALUES (?, ?, 'pending', ?, ?)",
  );
  const completeTest = db.prepare("UPDATE sso_tests SET status = ?, result = ? WHERE id = ? AND status = 'pending'");
  const getTest = db.prepare<
    [string, string],
    {
      id: string;
      org_id: string;
      status: StoredSsoTest['status'];
      result: string | null;
      created_at: string;
      expires_at: string;
    }
  >('SELECT * FROM sso_tests WHERE org_id = ? AND id = ?');
  const purgeTests = db.prepare('DELETE FROM sso_tests WHERE expires_at < ?');

  const toRequest = (r: RequestRow): SsoRequest => ({
    id: r.id,
    orgId: r.org_id,
    protocol: r.protocol,
    continuation: JSON.parse(r.continuation) as SsoContinuation,
    secret: r.sealed === null ? null : JSON.parse(secrets.open(r.sealed, SEALED.ssoRequest(r.id))),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  });

  return {
    /** Records a sign-in sent to an identity provider (its secret part sealed). */
    insertRequest: (r: SsoRequest) =>
      void insertRequest.run({
        id: r.id,
        orgId: r.orgId,
        protocol: r.protocol,
        continuation: JSON.stringify(r.continuation),
        sealed: r.secret === null ? null : secrets.seal(JSON.stringify(r.secret), SEALED.ssoRequest(r.id)),
        createdAt: r.createdAt,
        expiresAt: r.expiresAt,
      }),
    /** Uses a request of this organization up (compare-and-set): undefined when unknown, used, expired or another's. */
    redeemRequest: (id: string, orgId: string, now: string) => {
      const r = redeem.get(now, id, orgId, now);
      return r && toRequest(r);
    },
    /** A request in any state (to tell why it could not be redeemed). */
    requestState: (id: string) => {
      const r = requestById.get(id);
      return r && { orgId: r.org_id, usedAt: r.used_at, expiresAt: r.expires_at };
    },
    /** Records an assertion id of the organization until it expires; false when it was seen already (a replay). */
    recordAssertion: (orgId: string, assertionId: string, expiresAt: string) =>
      recordAssertion.run(orgId, assertionId, expiresAt).changes === 1,
    /** Forgets requests and assertion ids that expired before `before`. */
    purge: (before: string) => {
      purgeRequests.run(before);
      purgeAssertions.run(before);
      purgeTests.run(before);
    },
    /** Opens a `plat sso test`, pending until its sign-in comes back. */
    insertTest: (t: { id: string; orgId: string; createdAt: string; expiresAt: string }) =>
      void insertTest.run(t.id, t.orgId, t.createdAt, t.expiresAt),
    /** Records a test's outcome once (compare-and-set); false when it had one already. */
    completeTest: (id: string, status: 'succeeded' | 'failed', result: Record<string, unknown>) =>
      completeTest.run(status, JSON.stringify(result), id).changes === 1,
    /** A test of the organization, or undefined. */
    test: (orgId: string, id: string): StoredSsoTest | undefined => {
      const r = getTest.get(orgId, id);
      return (
        r && {
          id: r.id,
          orgId: r.org_id,
          status: r.status,
          result: r.result === null ? null : (JSON.parse(r.result) as Record<string, unknown>),
          createdAt: r.created_at,
          expiresAt: r.expires_at,
        }
      );
    },
    /** The user an identity provider's subject is in the organization, if it signed in before. */
    identity: (orgId: string, subject: string) => identity.get(orgId, subject)?.user_id,
    /** Links a subject to a user (or notes that it signed in again). */
    link: (orgId: string, subject: string, userId: string, now: string) =>
      void link.run(orgId, subject, userId, now, now),
    /** Forgets every identity of the organization (it now signs in through another identity provider). */
    unlinkOrg: (orgId: string) => void unlinkOrg.run(orgId),
    /** Forgets the identities of a user who leaves the organization. */
    unlinkUser: (orgId: string, userId: string) => void unlinkUser.run(orgId, userId),
  };
}
