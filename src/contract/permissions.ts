import * as z from 'zod';

/** Every permission (= OAuth scope), `resource:action`. Deny by default. */
export const PERMISSIONS = [
  'org:read',
  'org:write',
  'users:read',
  'users:write',
  'projects:read',
  'projects:write',
  'members:read',
  'members:write',
  'resources:read',
  'resources:write',
  'sessions:read',
  'sessions:write',
  'sso:read',
  'sso:write',
  'keys:read',
  'keys:write',
  'events:read',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Permission = (typeof PERMISSIONS)[number];
export const permissionSchema = z.enum(PERMISSIONS);

export const ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
export const orgRoleSchema = z.enum(ORG_ROLES);

export const PROJECT_ROLES = ['admin', 'developer', 'viewer'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];
export const projectRoleSchema = z.enum(PROJECT_ROLES);

/**
 * What each organization role holds across the whole organization (docs/api-reference.md, "Roles").
 * A `member` reads users and projects; project-level writes come from the project role, see PROJECT_ROLE_PERMISSIONS.
 */
export const ORG_ROLE_PERMISSIONS: Record<OrgRole, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS.filter((p) => p !== 'sso:write'),
  member: ['org:read', 'users:read', 'projects:read', 'members:read', 'resources:read'],
};

/** What a project role adds, inside that one project, to an organization `member`. */
export const PROJECT_ROLE_PERMISSIONS: Record<ProjectRole, readonly Permission[]> = {
  admin: ['projects:read', 'projects:write', 'members:read', 'members:write', 'resources:read', 'resources:write'],
  developer: ['projects:read', 'members:read', 'resources:read', 'resources:write'],
  viewer: ['projects:read', 'members:read', 'resources:read'],
};
