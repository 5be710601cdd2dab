import type { Endpoint } from '../../contract/endpoint.js';
import {
  ORG_ROLE_PERMISSIONS,
  type OrgRole,
  type Permission,
  PROJECT_ROLE_PERMISSIONS,
} from '../../contract/permissions.js';
import type { Ctx, Principal } from '../context.js';
import { forbidden } from '../errors.js';

/** Each organization role's permissions, as sets (checked on every request). */
const BY_ROLE = Object.fromEntries(
  Object.entries(ORG_ROLE_PERMISSIONS).map(([role, permissions]) => [role, new Set(permissions)]),
) as unknown as Record<OrgRole, ReadonlySet<Permission>>;

/** The permissions some project role grants inside its project. */
const IN_SOME_PROJECT = new Set(Object.values(PROJECT_ROLE_PERMISSIONS).flat());

/**
 * The pipeline's permission step: throws `403` unless the principal may call the endpoint, as its declaration says
 * (`access`, `scope`, its method and path), before the operation reads anything — so a credential without the
 * permission learns nothing of whether the resource exists. A key restricted to some projects (`projectIds`) changes
 * only what lies in a project — an endpoint under `{projectId}`, whose operation then refuses the other projects
 * (`404`, operations/projects.ts; `403` first where its user's role there is read and lacks the permission) — and
 * reads what its permissions allow (docs/api.md, "API keys"). A restricted credential (key permissions, token scopes)
 * must grant the permission; then, for `organization` endpoints, the organization role must include it; for `self`
 * ones, it must too unless the path's `{userId}` is the caller's own (one's own sessions need no role); `credential`
 * ones need none (creating an organization). For `project` ones, the organization role may hold it; where it does not
 * and a project role could grant it, the permission is returned: the caller's role in the path's project must grant
 * it, which the pipeline reads next (`requireProjectRole`).
 */
export function permit(
  endpoint: Pick<Endpoint, 'access' | 'scope' | 'method' | 'path' | 'alsoRequires'>,
  p: Principal,
  params: Readonly<Record<string, string>>,
): Permission | null {
  const inProject = permitAccess(endpoint, p, params);
  // What the endpoint also hands out: the credential and the organization role must both hold it.
  for (const also of endpoint.alsoRequires ?? []) {
    if ((p.grants && !p.grants.has(also)) || !BY_ROLE[p.role].has(also)) throw required(also);
  }
  return inProject;
}

/** The declared `access`, as `permit` describes. */
function permitAccess(
  endpoint: Pick<Endpoint, 'access' | 'scope' | 'method' | 'path'>,
  p: Principal,
  params: Readonly<Record<string, string>>,
): Permission | null {
  const permission = endpoint.access;
  // One's own sign-in (enrolling a factor): a user's token, whose scopes grant its own sessions' security.
  if (permission === 'user') {
    if (p.type !== 'user') throw forbidden("this operation needs a user's sign-in (an access token), not an API key");
    if (p.grants && !p.grants.has('sessions:write')) throw required('sessions:write');
    return null;
  }
  // A SCIM endpoint's token is of its organization, checked as it authenticates (scim/credential.ts): no role.
  if (permission === 'authenticated' || permission === 'public' || permission === 'scim') return null;
  if (p.projectIds !== null && endpoint.method !== 'GET' && !endpoint.path.includes('{projectId}')) {
    throw forbidden(
      'this API key is restricted to some projects (projectIds): it may change what lies in them, nothing of the ' +
        'organization itself (its users, invitations, teams, keys, SSO, projects to create, settings)',
    );
  }
  if (p.grants && !p.grants.has(permission)) throw required(permission);
  const scope = endpoint.scope ?? 'organization';
  if (scope === 'credential' || BY_ROLE[p.role].has(permission)) return null;
  if (scope === 'self' && params.userId === p.userId) return null;
  if (scope === 'project' && params.projectId !== undefined && IN_SOME_PROJECT.has(permission)) return permission;
  throw required(permission);
}

/**
 * The rest of a `project` endpoint's permission (`permit` returned it): the caller's role in the project the path
 * names must grant it, `403` otherwise — for a project that exists and one that does not alike. Read before the
 * operation, which then finds the project or answers `404`: outside its transaction, as the organization role is read
 * with the credential (a role taken away in the very same moment may still let that one request through).
 */
export async function requireProjectRole(ctx: Ctx, projectId: string, permission: Permission): Promise<void> {
  const role = await ctx.stores.projects.memberRole(projectId, ctx.principal.userId);
  if (!role || !PROJECT_ROLE_PERMISSIONS[role].includes(permission)) {
    throw forbidden(`this operation requires the ${permission} permission on this project`);
  }
}

function required(permission: Permission) {
  return forbidden(`this operation requires the ${permission} permission`);
}
