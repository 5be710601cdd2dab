import type { Permission } from '../../contract/permissions.js';
import type { SsoConfig } from '../../contract/sso.js';
import { SEALED } from './secret-box.js';
import type { Q, StoreEnv } from './sql.js';

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
export function ssoSignInStore(q: Q, env: StoreEnv) {
  const { secrets } = env;
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
    insertRequest: async (r: SsoRequest): Promise<void> => {
      await q
        .insertInto('sso_requests')
        .values({
          id: r.id,
          org_id: r.orgId,
          protocol: r.protocol,
          continuation: JSON.stringify(r.continuation),
          sealed: r.secret === null ? null : secrets.seal(JSON.stringify(r.secret), SEALED.ssoRequest(r.id)),
          created_at: r.createdAt,
          expires_at: r.expiresAt,
        })
        .execute();
    },
    /** Uses a request of this organization up (compare-and-set): undefined when unknown, used, expired or another's. */
    redeemRequest: async (id: string, orgId: string, now: string) => {
      const r = await q
        .updateTable('sso_requests')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returningAll()
        .$castTo<RequestRow>()
        .executeTakeFirst();
      return r && toRequest(r);
    },
    /** A request in any state (to tell why it could not be redeemed). */
    requestState: async (id: string) => {
      const r = await q
        .selectFrom('sso_requests')
        .select(['org_id', 'used_at', 'expires_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      return r && { orgId: r.org_id, usedAt: r.used_at, expiresAt: r.expires_at };
    },
    /** Records an assertion id of the organization until it expires; false when it was seen already (a replay). */
    recordAssertion: async (orgId: string, assertionId: string, expiresAt: string) => {
      const r = await q
        .insertInto('sso_assertions')
        .values({ org_id: orgId, assertion_id: assertionId, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(['org_id', 'assertion_id']).doNothing())
        .executeTakeFirst();
      return r.numInsertedOrUpdatedRows === 1n;
    },
    /** Forgets requests, assertion ids and tests that expired before `before`. */
    purge: async (before: string): Promise<void> => {
      await q.deleteFrom('sso_requests').where('expires_at', '<', before).execute();
      await q.deleteFrom('sso_assertions').where('expires_at', '<', before).execute();
      await q.deleteFrom('sso_tests').where('expires_at', '<', before).execute();
    },
    /** Opens a `plat sso test`, pending until its sign-in comes back. */
    insertTest: async (t: { id: string; orgId: string; createdAt: string; expiresAt: string }): Promise<void> => {
      await q
        .insertInto('sso_tests')
        .values({ id: t.id, org_id: t.orgId, status: 'pending', created_at: t.createdAt, expires_at: t.expiresAt })
        .execute();
    },
    /** Records a test's outcome once (compare-and-set); false when it had one already. */
    completeTest: async (id: string, status: 'succeeded' | 'failed', result: Record<string, unknown>) => {
      const r = await q
        .updateTable('sso_tests')
        .set({ status, result: JSON.stringify(result) })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    /** A test of the organization, or undefined. */
    test: async (orgId: string, id: string): Promise<StoredSsoTest | undefined> => {
      const r = await q
        .selectFrom('sso_tests')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return (
        r && {
          id: r.id,
          orgId: r.org_id,
          status: r.status as StoredSsoTest['status'],
          result: r.result === null ? null : (JSON.parse(r.result) as Record<string, unknown>),
          createdAt: r.created_at,
          expiresAt: r.expires_at,
        }
      );
    },
    /** The user an identity provider's subject is in the organization, if it signed in before. */
    identity: async (orgId: string, subject: string) => {
      const r = await q
        .selectFrom('sso_identities')
        .select('user_id')
        .where('org_id', '=', orgId)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return r?.user_id;
    },
    /** Links a subject to a user (or notes that it signed in again). */
    link: async (orgId: string, subject: string, userId: string, now: string): Promise<void> => {
      await q
        .insertInto('sso_identities')
        .values({ org_id: orgId, subject, user_id: userId, created_at: now, last_seen_at: now })
        .onConflict((oc) =>
          oc.columns(['org_id', 'subject']).doUpdateSet((eb) => ({ last_seen_at: eb.ref('excluded.last_seen_at') })),
        )
        .execute();
    },
    /** Forgets every identity of the organization (it now signs in through another identity provider). */
    unlinkOrg: async (orgId: string): Promise<void> => {
      await q.deleteFrom('sso_identities').where('org_id', '=', orgId).execute();
    },
    /** Forgets the identities of a user who leaves the organization. */
    unlinkUser: async (orgId: string, userId: string): Promise<void> => {
      await q.deleteFrom('sso_identities').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
    },
  };
}
