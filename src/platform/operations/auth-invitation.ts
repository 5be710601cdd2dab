import type { Invitation } from '../../contract/users.js';
import type { BaseCtx } from '../context.js';
import { audit } from './auth.js';
import { hashInvitationToken } from './invitations.js';

/** The invitation a link token opens, while it can still be accepted. */
export async function openInvitation(ctx: BaseCtx, token: string): Promise<Invitation | undefined> {
  if (!token || token.length > 200) return undefined;
  return ctx.stores.invitations.findPendingByTokenHash(hashInvitationToken(token), ctx.now());
}

/**
 * Accepts an invitation: the membership becomes `active` under the chosen name, the account verified (the link came
 * by e-mail) and, for a new account, given its password hash. One transaction, the invitation's compare-and-set
 * first: false (nothing written) when the link was used or died meanwhile.
 */
export async function acceptInvitation(
  ctx: BaseCtx,
  r: { token: string; name: string; passwordHash: string | null },
): Promise<Invitation | undefined> {
  return ctx.tx(async (ctx) => {
    const inv = await openInvitation(ctx, r.token);
    const now = ctx.now();
    if (!inv || !(await ctx.stores.invitations.markAccepted(inv.id, now))) return undefined;
    const member = await ctx.stores.users.get(inv.organizationId, inv.userId);
    if (!member) return undefined;
    if (r.passwordHash) await ctx.stores.users.setPassword(inv.userId, r.passwordHash, now);
    await ctx.stores.users.markEmailVerified(inv.userId, now);
    await ctx.stores.users.update(inv.organizationId, { ...member, name: r.name, status: 'active', updatedAt: now });
    await audit(
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
