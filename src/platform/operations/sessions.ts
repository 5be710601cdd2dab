import type { Session } from '../../contract/sessions.js';
import type { User } from '../../contract/users.js';
import type { Ctx } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import type { StoredSession } from '../store/sessions.js';
import { loadUser } from './users.js';

function toSession(ctx: Ctx, s: StoredSession): Session {
  return {
    id: s.id,
    userId: s.userId,
    method: s.method,
    amr: s.amr,
    ipAddress: s.ipAddress,
    userAgent: s.userAgent,
    createdAt: s.createdAt,
    lastActive: s.lastActive,
    expiresAt: s.expiresAt,
    current: s.id === ctx.principal.sessionId,
  };
}

/**
 * Only owners may revoke an owner's sessions (or reset an owner's second factors: operations/mfa.ts, with `what` naming
 * it in the refusal). The rest of the rule is the endpoints' declaration, checked before anything is read
 * (http/permit.ts, scope `self`): everyone may read and revoke their own sessions; another user's need
 * `sessions:read` / `sessions:write`; a restricted credential (key permissions, token scopes) must grant the permission
 * even for its own user, so a key limited to `projects:read` cannot sign its owner out everywhere.
 */
export function guardOwners(ctx: Ctx, user: User, what = "revoke an owner's sessions"): void {
  const p = ctx.principal;
  if (user.id !== p.userId && user.role === 'owner' && p.role !== 'owner') throw forbidden(`only owners can ${what}`);
}

/** `GET /users/{userId}/sessions`: the user's active sessions in the acting organization, newest first. */
export async function listSessions(ctx: Ctx, userId: string): Promise<{ data: Session[] }> {
  await loadUser(ctx, userId);
  const sessions = await ctx.stores.sessions.listActive(ctx.principal.orgId, userId, ctx.now());
  return { data: sessions.map((s) => toSession(ctx, s)) };
}

/**
 * `DELETE /users/{userId}/sessions/{sessionId}`: revokes one session, so its refresh tokens and access tokens stop
 * working. Revoking a session that is already revoked or expired succeeds and changes nothing.
 */
export async function revokeSession(ctx: Ctx, userId: string, sessionId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const user = await loadUser(ctx, userId);
    const session = await ctx.stores.sessions.get(ctx.principal.orgId, userId, sessionId);
    if (!session) throw notFound('session');
    guardOwners(ctx, user);
    if (!(await ctx.stores.sessions.revoke(sessionId, ctx.now()))) return;
    await ctx.emit('session.revoked', { type: 'session', id: sessionId }, { userId });
  });
}

/**
 * `DELETE /users/{userId}/sessions`: revokes every active session of the user here, optionally keeping the caller's
 * own, and cuts off the user's sessions of other organizations from acting here (`sessionCutOff`), which this
 * organization can neither see nor revoke. `revoked` counts this organization's sessions.
 */
export async function revokeAllSessions(ctx: Ctx, userId: string, keepCurrent: boolean): Promise<{ revoked: number }> {
  return ctx.tx(async (ctx) => {
    const user = await loadUser(ctx, userId);
    guardOwners(ctx, user);
    const keep = keepCurrent && userId === ctx.principal.userId ? ctx.principal.sessionId : null;
    const revoked = await ctx.stores.sessions.revokeActive(ctx.principal.orgId, userId, ctx.now(), keep);
    await ctx.stores.sessions.cutOff(ctx.principal.orgId, userId, ctx.now(), keep);
    if (revoked > 0) {
      await ctx.emit('sessions.revoked', { type: 'user', id: userId }, { revoked, keptSessionId: keep });
    }
    return { revoked };
  });
}
