import type { Endpoint } from '../../contract/endpoint.js';
import {
  ORG_ROLE_PERMISSIONS,
  type OrgRole,
  type Permission,
  PROJECT_ROLE_PERMISSIONS,
} from '../../contract/permissions.js';
import type { Principal } from '../context.js';
import { forbidden } from '../errors.js';

/** Each organization role's permissions, as sets (checked on every request). */
const BY_ROLE = Object.fromEntries(
  Object.entries(ORG_ROLE_PERMISSIONS).map(([role, permissions]) => [role, new Set(permissions)]),
) as unknown as Record<OrgRole, ReadonlySet<Permission>>;

/** The permissions some project role grants inside its project. */
const IN_SOME_PROJECT = new Set(Object.values(PROJECT_ROLE_PERMISSIONS).flat());

/**
 * The pipeline's permission step: throws `403` unless the principal may call the endpoint, as its declaration says
 * (`access`, `scope`, its method and path), before anything is read for the request — so a credential without the
 * permission learns nothing of whether the resource exists. A key restricted to some projects (`projectIds`) changes
 * only what lies in a project — an endpoint under `{projectId}`, whose operation then refuses the other projects
 * (`404`, operations/projects.ts) — and reads what its permissions allow (docs/api.md, "API keys"). A restricted
 * credential (key permissions, token scopes) must grant the permission; then, for `organization` endpoints, the
 * organization role must include it; for `project` ones, the organization role, or else a project role must be able
 * to grant it (the operation reads the caller's role in that project); `self` endpoints leave the role to the
 * operation (a user's own sessions need none), and `credential` ones need none (creating an organization).
 */
export function permit(
  endpoint: Pick<Endpoint, 'access' | 'scope' | 'method' | 'path' | 'alsoRequires'>,
  p: Principal,
): void {
  permitAccess(endpoint, p);
  // What the endpoint also hands out: the credential and the organization role must both hold it.
  for (const also of endpoint.alsoRequires ?? []) {
    if ((p.grants && !p.grants.has(also)) || !BY_ROLE[p.role].has(also)) throw required(also);
  }
}

/** The declared `access`, as `permit` describes. */
function permitAccess(endpoint: Pick<Endpoint, 'access' | 'scope' | 'method' | 'path'>, p: Principal): void {
  const permission = endpoint.access;
  // One's own sign-in (enrolling a factor): a user's token, whose scopes grant its own sessions' security.
  if (permission === 'user') {
    if (p.type !== 'user') throw forbidden("this operation needs a user's sign-in (an access token), not an API key");
    if (p.grants && !p.grants.has('sessions:write')) throw required('sessions:write');
    return;
  }
  // A SCIM endpoint's token is of its organization, checked as it authenticates (scim/credential.ts): no role.
  if (permission === 'authenticated' || permission === 'public' || permission === 'scim') return;
  if (p.projectIds !== null && endpoint.method !== 'GET' && !endpoint.path.includes('{projectId}')) {
    throw forbidden(
      'this API key is restricted to some projects (projectIds): it may change what lies in them, nothing of the ' +
        'organization itself (its users, invitations, teams, keys, SSO, projects to create, settings)',
    );
  }
  if (p.grants && !p.grants.has(permission)) throw required(permission);
  const scope = endpoint.scope ?? 'organization';
  if (scope === 'self' || scope === 'credential' || BY_ROLE[p.role].has(permission)) return;
  if (scope === 'project' && IN_SOME_PROJECT.has(permission)) return;
  throw required(permission);
}

function required(permission: Permission) {
  return forbidden(`this operation requires the ${permission} permission`);
}
