import type { SignInMethod } from '../../src/contract/sessions.js';
import type { BearerVerifier } from '../../src/platform/auth/credentials.js';
import { PlatformError } from '../../src/platform/errors.js';
import { isActive } from '../../src/platform/store/sessions.js';
import { baseOf } from './internals.js';
import type { TestPlatform } from './platform.js';

export interface SessionOptions {
  /** Default: the bootstrap organization. */
  orgId?: string;
  clientId?: string | null;
  ipAddress?: string | null;
  userAgent?: string | null;
  /** Default: 30 days after now. `null`: never expires. */
  expiresAt?: string | null;
  /** Default: `password`. */
  method?: SignInMethod;
}

/** Records a sign-in session for a user, as sign-in would; returns its id. */
export async function createSession(t: TestPlatform, userId: string, opts: SessionOptions = {}): Promise<string> {
  const base = baseOf(t.platform);
  const id = base.ids('session');
  const now = base.now();
  await base.stores.sessions.insert({
    id,
    userId,
    organizationId: opts.orgId ?? t.orgId,
    clientId: opts.clientId === undefined ? 'plat-cli' : opts.clientId,
    method: opts.method ?? 'password',
    amr: opts.method === 'saml' || opts.method === 'oidc' ? ['sso'] : ['pwd'],
    ipAddress: opts.ipAddress === undefined ? '203.0.113.7' : opts.ipAddress,
    userAgent: opts.userAgent === undefined ? 'plat/0.1.0' : opts.userAgent,
    createdAt: now,
    expiresAt:
      opts.expiresAt === undefined ? new Date(Date.parse(now) + 30 * 24 * 3600_000).toISOString() : opts.expiresAt,
  });
  return id;
}

/** The bearer token `sessionBearer` accepts for a session. */
export function sessionToken(sessionId: string): string {
  return `test-session.${sessionId}`;
}

/**
 * A stand-in for the access-token verifier: `Bearer test-session.<sessionId>` acts as that session's user, with every
 * scope, and fails (`401`) once the session is revoked or expired — as real access tokens do.
 * Use with `testPlatform({ bearer: sessionBearer })` and `headers: bearer(sessionId)`.
 */
export const sessionBearer: BearerVerifier = async (ctx, token) => {
  const m = /^test-session\.(.+)$/.exec(token);
  const session = m ? await ctx.stores.sessions.byId(m[1] as string) : undefined;
  if (!session || !isActive(session, ctx.now())) {
    throw new PlatformError('authentication_failed', 'the session of this access token has ended');
  }
  return {
    type: 'user',
    userId: session.userId,
    homeOrgId: session.organizationId,
    multiOrg: true,
    grants: null,
    projectIds: null,
    keyId: null,
    sessionId: session.id,
    sessionCreatedAt: session.createdAt,
    expiresAt: session.expiresAt,
    amr: session.amr,
  };
};

/** Request headers that authenticate as a session (pass `key: null` to `call` too). */
export function bearer(sessionId: string): { key: null; headers: Record<string, string> } {
  return { key: null, headers: { Authorization: `Bearer ${sessionToken(sessionId)}` } };
}
