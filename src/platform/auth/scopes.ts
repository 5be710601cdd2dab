import {
  ORG_ROLE_PERMISSIONS,
  PERMISSIONS,
  type Permission,
  PROJECT_ROLE_PERMISSIONS,
} from '../../contract/permissions.js';
import type { BaseCtx } from '../context.js';

/** Scopes every signed-in user may be granted: their own sessions (whoami needs none). */
const SELF_SCOPES: readonly Permission[] = ['sessions:read', 'sessions:write'];

/** A parsed `scope` parameter: the permissions asked for, or the unknown names found. */
export type ScopeRequest = { ok: true; scopes: Permission[] | null } | { ok: false; unknown: string[] };

/** Parses a space-separated `scope` (absent or empty: null, meaning "everything the user holds"). */
export function parseScope(scope: string | null | undefined): ScopeRequest {
  const names = (scope ?? '').split(' ').filter((s) => s !== '');
  if (names.length === 0) return { ok: true, scopes: null };
  const unknown = names.filter((n) => !(PERMISSIONS as readonly string[]).includes(n));
  if (unknown.length > 0) return { ok: false, unknown };
  return { ok: true, scopes: [...new Set(names as Permission[])] };
}

/** What a project role can add to an organization `member`; which projects it applies to is decided at each use. */
const PROJECT_SCOPES = new Set(Object.values(PROJECT_ROLE_PERMISSIONS).flat());

/**
 * Every permission the user holds somewhere: their role's in each organization they are active in (for a `member`,
 * also what project roles add — the pipeline checks the project role of each project at use: http/permit.ts), and
 * their own sessions.
 * A token is multi-organization, so its scopes cover all of them; in each organization the role still decides.
 */
export async function heldScopes(ctx: BaseCtx, userId: string): Promise<Set<Permission>> {
  const held = new Set<Permission>(SELF_SCOPES);
  for (const org of await ctx.stores.organizations.listForUser(userId)) {
    const member = await ctx.stores.users.get(org.id, userId);
    if (member?.status !== 'active') continue;
    for (const p of ORG_ROLE_PERMISSIONS[member.role]) held.add(p);
    if (member.role === 'member') for (const p of PROJECT_SCOPES) held.add(p);
  }
  return held;
}

/** The scopes to grant: those asked for that the user holds (all they hold when none were asked), in canonical order. */
export function grantScopes(requested: readonly Permission[] | null, held: ReadonlySet<Permission>): Permission[] {
  return PERMISSIONS.filter((p) => held.has(p) && (requested === null || requested.includes(p)));
}
