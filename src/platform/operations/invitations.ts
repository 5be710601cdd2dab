import { createHash, randomBytes } from 'node:crypto';
import type { List } from '../../contract/common.js';
import { apiPath } from '../../contract/endpoint.js';
import { oauth } from '../../contract/endpoints/auth.js';
import type { Invitation, InvitationCreate, InvitationListQuery } from '../../contract/users.js';
import type { Ctx } from '../context.js';
import { conflict, forbidden, invalidField, notFound } from '../errors.js';
import { resolveListing } from '../store/paging.js';
import { invitationMessage, sendMail } from './mail.js';

/** How long an invitation link stays valid (docs/api.md, "Decisions"). */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The stored form of an invitation link token: SHA-256, hex. The token has 256 random bits, so a fast hash is enough. */
export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The acceptance link of an invitation e-mail (the page lives in platform/auth). */
export function invitationLink(publicUrl: string, token: string): string {
  return `${publicUrl}${apiPath(oauth.invitationPage)}?token=${token}`;
}

/** A fresh link token (32 random bytes, base64url) and its hash; only the hash is stored. */
function newToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashInvitationToken(token) };
}

function expiryFrom(ctx: Ctx): string {
  return new Date(ctx.clock().getTime() + INVITATION_TTL_MS).toISOString();
}

/** Queues the invitation e-mail with a link carrying `token`. */
async function mailInvitation(ctx: Ctx, inv: Invitation, token: string): Promise<void> {
  const orgId = ctx.principal.orgId;
  const org = await ctx.stores.organizations.get(orgId);
  const inviter = await ctx.stores.users.get(orgId, ctx.principal.userId);
  const message = invitationMessage({
    to: inv.email,
    name: inv.name,
    organizationName: org?.name ?? orgId,
    inviterName: inviter?.name ?? inviter?.email ?? null,
    role: inv.role,
    link: invitationLink(ctx.publicUrl, token),
    expiresAt: inv.expiresAt,
  });
  await sendMail(ctx, message, orgId);
}

/** What a pending user is made of: who, their role and teams (ids, checked), and what the organization notes. */
export interface PendingUser {
  email: string;
  name: string | null;
  role: Invitation['role'];
  teams: string[];
  metadata?: Record<string, string | number | boolean>;
}

/**
 * Makes a `pending` user with its invitation, in the caller's transaction: a new account (unverified) for an unknown
 * e-mail, else a pending membership of the existing account (`account`); puts it in its teams; stores the link's token
 * only as a hash, and mails the link unless `mail` is false (`POST …/invitations/{id}/resend` mails a new one later).
 */
export async function insertPendingUser(
  ctx: Ctx,
  orgId: string,
  u: PendingUser,
  account: { id: string; email: string } | undefined,
  opts: { mail: boolean; batch?: boolean; emailVerified?: boolean; suspended?: boolean },
): Promise<Invitation> {
  const now = ctx.now();
  const userId = account?.id ?? ctx.ids('user');
  const email = account?.email ?? u.email;
  if (!account) await ctx.stores.users.insertAccount(userId, email, opts.emailVerified ?? false, now);
  const { name, role, teams } = u;
  await ctx.stores.users.insertMembership({
    orgId,
    userId,
    email,
    name,
    role,
    status: 'pending',
    metadata: u.metadata,
    now,
  });
  for (const teamId of teams) await ctx.stores.teams.addMember(orgId, teamId, userId, now);
  const { token, tokenHash } = newToken();
  const invitation: Invitation = {
    id: ctx.ids('invitation'),
    email,
    name,
    role,
    teams,
    status: 'pending',
    userId,
    organizationId: orgId,
    createdAt: now,
    expiresAt: expiryFrom(ctx),
  };
  await ctx.stores.invitations.insert({ ...invitation, tokenHash, invitedBy: ctx.principal.userId });
  if (opts.mail) await mailInvitation(ctx, invitation, token);
  await ctx.emit(
    'user.invited',
    { type: 'user', id: userId },
    {
      invitationId: invitation.id,
      email,
      role,
      teams,
      newAccount: !account,
      ...(opts.batch && { batch: true, mailed: opts.mail }),
      ...(opts.suspended && { status: 'suspended' }),
    },
  );
  return invitation;
}

/** `422` naming the teams the organization does not have, if any. */
export function refuseUnknownTeams(unknown: readonly string[]): void {
  if (unknown.length > 0)
    throw invalidField('teams', `unknown team${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
}

/** Only owners may invite an owner, or resend or revoke the invitation of an owner-to-be (docs/api-reference.md, "Roles"). */
export function guardOwnerRole(ctx: Ctx, role: Invitation['role']): void {
  if (role === 'owner' && ctx.principal.role !== 'owner') {
    throw forbidden('only owners can grant, remove or change the owner role');
  }
}

/**
 * `POST /organizations/{orgId}/users`: creates a `pending` user — a new account (unverified) for an unknown e-mail,
 * else a pending membership of the existing account — puts it in the given teams, and mails a link whose token is
 * stored only as a hash.
 */
export async function createInvitation(ctx: Ctx, orgId: string, input: InvitationCreate): Promise<Invitation> {
  return ctx.tx(async (ctx) => {
    const role = input.role ?? 'member';
    guardOwnerRole(ctx, role);
    const teams = [...new Set(input.teams ?? [])];
    const unknown: string[] = [];
    for (const id of teams) if (!(await ctx.stores.teams.get(orgId, id))) unknown.push(id);
    refuseUnknownTeams(unknown);
    const account = await ctx.stores.users.accountByEmail(input.email);
    if (account && (await ctx.stores.users.get(orgId, account.id))) {
      throw conflict(`${account.email} is already a member of this organization`);
    }
    const pending = { email: input.email, name: input.name ?? null, role, teams };
    return insertPendingUser(ctx, orgId, pending, account, { mail: true });
  });
}

/** `GET /organizations/{orgId}/invitations`: newest first, filter `status`; offset or cursor paging. */
export async function listInvitations(ctx: Ctx, orgId: string, q: InvitationListQuery): Promise<List<Invitation>> {
  const scope = `invitations:${orgId}`;
  const listing = resolveListing(ctx.cursors, scope, q, { status: q.status }, {});
  const f = listing.filters as { status?: Invitation['status'] };
  return ctx.stores.invitations.list(orgId, listing, f, ctx.now(), (pos) =>
    ctx.cursors.encode(scope, listing.filters, pos),
  );
}

/** An invitation of the acting organization, or `404`. */
export async function loadInvitation(ctx: Ctx, invitationId: string): Promise<Invitation> {
  const inv = await ctx.stores.invitations.get(ctx.principal.orgId, invitationId, ctx.now());
  if (!inv) throw notFound('invitation');
  return inv;
}

export function getInvitation(ctx: Ctx, invitationId: string): Promise<Invitation> {
  return loadInvitation(ctx, invitationId);
}

/**
 * `POST /invitations/{id}/resend`: a pending or expired invitation gets a new link token (the old link stops
 * working), a new 7-day expiry and a new e-mail. Accepted or revoked → `409`.
 */
export async function resendInvitation(ctx: Ctx, invitationId: string): Promise<Invitation> {
  return ctx.tx(async (ctx) => {
    const inv = await loadInvitation(ctx, invitationId);
    const orgId = ctx.principal.orgId;
    const user = await ctx.stores.users.get(orgId, inv.userId);
    guardOwnerRole(ctx, user?.role === 'owner' ? 'owner' : inv.role);
    if (inv.status === 'accepted' || inv.status === 'revoked') {
      throw conflict(`the invitation is ${inv.status} and cannot be resent`);
    }
    if (user?.status !== 'pending') {
      throw conflict(`the invited user is ${user?.status ?? 'gone'}, not pending`);
    }
    const { token, tokenHash } = newToken();
    const next: Invitation = { ...inv, status: 'pending', expiresAt: expiryFrom(ctx) };
    if (!(await ctx.stores.invitations.renew(orgId, inv.id, tokenHash, next.expiresAt))) {
      throw conflict('the invitation is no longer pending');
    }
    await mailInvitation(ctx, next, token);
    await ctx.emit(
      'invitation.resent',
      { type: 'invitation', id: inv.id },
      { email: inv.email, wasExpired: inv.status === 'expired', expiresAt: next.expiresAt },
    );
    return next;
  });
}

/**
 * `DELETE /invitations/{id}`: revokes a pending or expired invitation and removes the user it created from the
 * organization (membership, teams, projects; the account too when it belongs nowhere else) — unless that user is
 * somehow active. Already revoked: nothing to do. Accepted → `409` (delete the user instead).
 */
export async function revokeInvitation(ctx: Ctx, invitationId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const inv = await loadInvitation(ctx, invitationId);
    const orgId = ctx.principal.orgId;
    const user = await ctx.stores.users.get(orgId, inv.userId);
    guardOwnerRole(ctx, user?.role === 'owner' ? 'owner' : inv.role);
    if (inv.status === 'revoked') return;
    if (inv.status === 'accepted') {
      throw conflict('the invitation was accepted; remove the user with DELETE /users/{userId} instead');
    }
    await ctx.stores.invitations.revoke(orgId, inv.id, ctx.now());
    const removeUser = user !== undefined && user.status !== 'active';
    if (removeUser) {
      await ctx.stores.projects.removeUser(orgId, inv.userId);
      await ctx.stores.teams.removeUser(orgId, inv.userId);
      await ctx.stores.sessions.removeForUser(orgId, inv.userId);
      await ctx.stores.apiKeys.removeForUser(orgId, inv.userId);
      await ctx.stores.users.remove(orgId, inv.userId);
    }
    await ctx.emit(
      'invitation.revoked',
      { type: 'invitation', id: inv.id },
      { email: inv.email, userId: inv.userId, userRemoved: removeUser },
    );
  });
}
