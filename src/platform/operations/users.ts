import type { List } from '../../contract/common.js';
import type { ListedUser, User, UserListQuery, UserPatch } from '../../contract/users.js';
import type { Ctx } from '../context.js';
import { conflict, forbidden, invalidField, notFound } from '../errors.js';
import { resolveListing } from '../store/paging.js';
import { type Awaitable, andThen } from '../store/sql.js';

/** The most keys a user's metadata holds (docs/api.md, "Decisions"). */
export const MAX_METADATA_KEYS = 50;

/** `GET /organizations/{orgId}/users`: filters, sorting, offset or cursor paging (docs/api.md, "Pagination"), each user's teams with `expand=teams`. */
export async function listUsers(ctx: Ctx, orgId: string, q: UserListQuery): Promise<List<ListedUser>> {
  const scope = `users:${orgId}`;
  // `expand` shapes the records, not the listing: a cursor continues the same listing with or without it.
  const listing = resolveListing(
    ctx.cursors,
    scope,
    q,
    { status: q.status, search: q.search, sort: q.sort, order: q.order },
    { sort: 'created_at', order: 'desc' },
  );
  const f = listing.filters as {
    status?: User['status'];
    search?: string;
    sort: UserListQuery['sort'] & string;
    order: 'asc' | 'desc';
  };
  const page = await ctx.stores.users.list(orgId, listing, f, (pos) => ctx.cursors.encode(scope, listing.filters, pos));
  if (q.expand !== 'teams') return page;
  const teams = await ctx.stores.teams.teamIdsOfUsers(
    orgId,
    page.data.map((u) => u.id),
  );
  return { ...page, data: page.data.map((u) => ({ ...u, teams: teams.get(u.id) ?? [] })) };
}

/** A user of the acting organization, or `404` (at once on SQLite: see `Awaitable`). */
export function loadUser(ctx: Ctx, userId: string): Awaitable<User> {
  return andThen(ctx.stores.users.get(ctx.principal.orgId, userId), (user) => {
    if (!user) throw notFound('user');
    return user;
  });
}

export function getUser(ctx: Ctx, userId: string): Awaitable<User> {
  return loadUser(ctx, userId);
}

/** Admins may not touch an owner, nor make anyone one (docs/api-reference.md, "Roles"). */
export function guardOwner(ctx: Ctx, target: User, grantsOwner = false): void {
  if ((target.role === 'owner' || grantsOwner) && ctx.principal.role !== 'owner') {
    throw forbidden('only owners can grant, remove or change the owner role');
  }
}

/** Throws `409` when removing `target` from the active owners would leave none. */
export async function guardLastOwner(ctx: Ctx, target: User, action: string): Promise<void> {
  if (
    target.role === 'owner' &&
    target.status === 'active' &&
    (await ctx.stores.users.activeOwnerCount(ctx.principal.orgId)) <= 1
  ) {
    throw conflict(`the last owner of an organization cannot be ${action}`);
  }
}

function guardSelf(ctx: Ctx, target: User, action: string): void {
  if (target.id === ctx.principal.userId) throw conflict(`you cannot ${action} yourself`);
}

/** A metadata patch over what a user has (`null` deletes a key); `422` past 50 keys. */
export function mergeMetadata(current: User['metadata'], patch: UserPatch['metadata']): User['metadata'] {
  const metadata = { ...current };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null) delete metadata[key];
    else metadata[key] = value;
  }
  if (Object.keys(metadata).length > MAX_METADATA_KEYS) {
    throw invalidField('metadata', `at most ${MAX_METADATA_KEYS} keys`);
  }
  return metadata;
}

/** `PATCH /users/{id}`: name, avatar, role, and a metadata merge where `null` deletes a key. */
export async function updateUser(ctx: Ctx, userId: string, patch: UserPatch): Promise<User> {
  return ctx.tx(async (ctx) => {
    const user = await loadUser(ctx, userId);
    guardOwner(ctx, user, patch.role === 'owner');
    if (patch.role !== undefined && patch.role !== 'owner') await guardLastOwner(ctx, user, 'demoted');
    const metadata = mergeMetadata(user.metadata, patch.metadata);
    const next: User = {
      ...user,
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.avatarUrl !== undefined && { avatarUrl: patch.avatarUrl }),
      ...(patch.role !== undefined && { role: patch.role }),
      metadata,
      updatedAt: ctx.now(),
    };
    await ctx.stores.users.update(ctx.principal.orgId, next);
    await ctx.emit(
      'user.updated',
      { type: 'user', id: userId },
      {
        fields: Object.keys(patch),
        ...(patch.role !== undefined && patch.role !== user.role && { role: { from: user.role, to: patch.role } }),
      },
    );
    return next;
  });
}

/** Suspends a user from any state (idempotent), revoking every session and API key they hold here, atomically. */
export async function suspendUser(ctx: Ctx, userId: string): Promise<User> {
  return ctx.tx(async (ctx) => {
    const user = await loadUser(ctx, userId);
    await guardSuspension(ctx, user);
    return suspendMember(ctx, user);
  });
}

/** Throws when the caller may not suspend `user`: themselves, an owner unless an owner, the last active owner. */
export async function guardSuspension(ctx: Ctx, user: User): Promise<void> {
  guardSelf(ctx, user, 'suspend');
  guardOwner(ctx, user);
  await guardLastOwner(ctx, user, 'suspended');
}

/**
 * `suspendUser`'s writes, in the caller's transaction, once `guardSuspension` has passed; `user.suspended` unless the
 * caller records the change in an event of its own (`emit` false: a batch writes one event per user).
 */
export async function suspendMember(ctx: Ctx, user: User, emit = true): Promise<User> {
  const now = ctx.now();
  const orgId = ctx.principal.orgId;
  const sessionsRevoked = await ctx.stores.sessions.revokeForUser(orgId, user.id, now);
  // Sessions of the user's other organizations too: else they would act here again after an unsuspend.
  await ctx.stores.sessions.cutOff(orgId, user.id, now);
  const keysRevoked = await ctx.stores.apiKeys.revokeForUser(orgId, user.id, now);
  if (user.status === 'suspended') return user;
  const next: User = { ...user, status: 'suspended', updatedAt: now };
  await ctx.stores.users.update(orgId, next);
  if (emit) await ctx.emit('user.suspended', { type: 'user', id: user.id }, { sessionsRevoked, keysRevoked });
  return next;
}

/** Returns a suspended user to `active`, or to `pending` when they never accepted their invitation. */
export async function unsuspendUser(ctx: Ctx, userId: string): Promise<User> {
  return ctx.tx(async (ctx) => {
    const user = await loadUser(ctx, userId);
    guardOwner(ctx, user);
    if (user.status !== 'suspended') throw conflict(`the user is ${user.status}, not suspended`);
    const joined = await ctx.stores.users.hasJoined(ctx.principal.orgId, userId);
    const next: User = { ...user, status: joined ? 'active' : 'pending', updatedAt: ctx.now() };
    await ctx.stores.users.update(ctx.principal.orgId, next);
    await ctx.emit('user.unsuspended', { type: 'user', id: userId }, { status: next.status });
    return next;
  });
}

/** Removes a user from the organization with their memberships, sessions, keys and open invitations. Irreversible. */
export async function deleteUser(ctx: Ctx, userId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const user = await loadUser(ctx, userId);
    guardSelf(ctx, user, 'delete');
    guardOwner(ctx, user);
    await guardLastOwner(ctx, user, 'deleted');
    const orgId = ctx.principal.orgId;
    const now = ctx.now();
    await ctx.stores.projects.removeUser(orgId, userId);
    await ctx.stores.teams.removeUser(orgId, userId);
    await ctx.stores.sessions.removeForUser(orgId, userId);
    await ctx.stores.apiKeys.removeForUser(orgId, userId);
    await ctx.stores.invitations.revokeForUser(orgId, userId, now);
    // Their identity at the organization's identity provider no longer signs them in: a new sign-in provisions anew.
    await ctx.stores.ssoSignIn.unlinkUser(orgId, userId);
    // What the directory said of them (SCIM's externalId…): a later member of the same account starts afresh.
    await ctx.stores.scim.dropExtra(orgId, 'User', userId);
    await ctx.stores.users.remove(orgId, userId);
    await ctx.emit('user.deleted', { type: 'user', id: userId }, { email: user.email });
  });
}
