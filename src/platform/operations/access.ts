import { ORG_ROLE_PERMISSIONS, type Permission } from '../../contract/permissions.js';
import type { Principal } from '../context.js';

/** Whether a key restricted to some projects may see this one. */
export function canSeeProject(p: Principal, projectId: string): boolean {
  return p.projectIds === null || p.projectIds.includes(projectId);
}

/** The principal's permissions in its organization, as scopes (for whoami and tokens). */
export function effectivePermissions(p: Principal): Permission[] {
  return ORG_ROLE_PERMISSIONS[p.role].filter((perm) => !p.grants || p.grants.has(perm));
}
