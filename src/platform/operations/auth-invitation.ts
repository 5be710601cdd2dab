import type { Invitation } from '../../contract/users.js';
import type { BaseCtx } from '../context.js';
import { audit } from './auth.js';
import { hashInvitationToken } from './invitations.js';

/** The invitation a link token opens, while it can still be accepted. */
export function openInvitation(ctx: BaseCtx, token: string): Invitation | undefined {
  if (!token || token.length > 200) return undefined;
  return ctx.stores.invitations.findPendingByTokenHash(hashInvitationToken(token), ctx.now());
}

/**
 * Accepts an invitation: the membership becomes `active` under the chosen name, the account verified (the link came
 * by e-mail) and, for a new account, given its password hash. One transaction, the invitation's compare-and-set
 * first: false (nothing written) when the link was used or died meanwhile.
 */
export function acceptInvitation(
  ctx: BaseCtx,
  r: { token: string; name: string; passwordHash: string | null },
): Invitation | undefined {
  return ctx.tx(() => {
    const inv = openInvitation(ctx, r.token);
    const now = ctx.now();
    if (!inv || !ctx.stores.invitations.markAccepted(inv.id, now)) return undefined;
    const member = ctx.stores.users.get(inv.organizationId, inv.userId);
    if (!member) return undefined;
    if (r.passwordHash) ctx.stores.users.setPassword(inv.userId, r.passwordHash, now);
    ctx.stores.users.markEmailVerified(inv.userId, now);
    ctx.stores.users.update(inv.organizationId, { ...member, name: r.name, status: 'active', updatedAt: now });
    audit(
      ctx,
      inv.organizationId,
      { type: 'user', id: inv.userId },
      'invitation.accepted',
      {
        type: 'invitation',
        id: inv.id,
      },
      { userId: inv.userId, passwordSet: r.passwordHash !== null },
    );
    return { ...inv, status: 'accepted' };
  });
}
