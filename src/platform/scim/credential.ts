// Who calls a SCIM endpoint: a SCIM token of the path's organization, and nothing else (docs/scim.md).
import { hashSecret } from '../auth/api-keys.js';
import type { BaseCtx, Principal } from '../context.js';
import { ScimError } from './errors.js';

/** The principal of a SCIM request: its token, acting in the path's organization with what SCIM may change. */
export async function scimPrincipal(base: BaseCtx, authorization: string | null, orgId: string): Promise<Principal> {
  const match = /^Bearer\s+(scim_[0-9A-Za-z]{43})\s*$/i.exec(authorization ?? '');
  if (!match) {
    const other = authorization !== null && /^Bearer\s+\S/i.test(authorization);
    throw new ScimError(
      401,
      undefined,
      other
        ? 'SCIM endpoints take a SCIM token of the organization (plat scim tokens create), not an API key or access token'
        : 'send the SCIM token as Authorization: Bearer scim_…',
    );
  }
  const token = await base.stores.scim.byHash(hashSecret(match[1] as string));
  // Another organization's token is as unknown here as a made-up one.
  if (!token || token.organizationId !== orgId) throw new ScimError(401, undefined, 'the SCIM token is not valid here');
  const organization = await base.stores.organizations.get(orgId);
  if (!organization) throw new ScimError(401, undefined, 'the SCIM token is not valid here');
  return {
    type: 'scim_token',
    userId: '',
    homeOrgId: orgId,
    multiOrg: false,
    grants: null,
    projectIds: null,
    keyId: token.id,
    sessionId: null,
    sessionCreatedAt: null,
    expiresAt: null,
    orgId,
    // What SCIM changes is an admin's to change: never an owner (the SCIM handlers refuse them with a 403 first).
    role: 'admin',
    plan: organization.plan,
  };
}
