import {
  ORG_ROLE_PERMISSIONS,
  type Permission,
  PROJECT_ROLE_PERMISSIONS,
  type ProjectRole,
} from '../../contract/permissions.js';
import type { Ctx, Principal } from '../context.js';
import { forbidden } from '../errors.js';

/**
 * Whether the principal holds `permission`: its credential must grant it (key permissions, token scopes) and its
 * organization role must include it — or, for an organization `member`, its role in the project at hand.
 */
export function holds(p: Principal, permission: Permission, projectRole?: ProjectRole | null): boolean {
  if (p.grants && !p.grants.has(permission)) return false;
  if (ORG_ROLE_PERMISSIONS[p.role].includes(permission)) return true;
  return projectRole ? PROJECT_ROLE_PERMISSIONS[projectRole].includes(permission) : false;
}

/** Throws `403` unless the principal holds `permission` in the project (counting its project role). */
export async function requireProjectPermission(ctx: Ctx, projectId: string, permission: Permission): Promise<void> {
  const p = ctx.principal;
  const role = p.role === 'member' ? await ctx.stores.projects.memberRole(projectId, p.userId) : null;
  if (!holds(p, permission, role))
    throw forbidden(`this operation requires the ${permission} permission on this project`);
}

/** Whether a key restricted to some projects may see this one. */
export function canSeeProject(p: Principal, projectId: string): boolean {
  return p.projectIds === null || p.projectIds.includes(projectId);
}

/** The principal's permissions in its organization, as scopes (for whoami and tokens). */
export function effectivePermissions(p: Principal): Permission[] {
  return ORG_ROLE_PERMISSIONS[p.role].filter((perm) => !p.grants || p.grants.has(perm));
}
