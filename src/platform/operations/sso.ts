import type { SsoConfig, SsoPut } from '../../contract/sso.js';
import type { Ctx } from '../context.js';
import { invalidField, notFound } from '../errors.js';
import { requireOrg, requirePermission } from './access.js';

const SAML_FIELDS = ['metadataUrl', 'metadataXml'] as const;
const OIDC_FIELDS = ['issuer', 'clientId', 'clientSecret'] as const;

/** The organization's configuration, or `404`. */
function loadConfig(ctx: Ctx): SsoConfig {
  const config = ctx.stores.sso.get(ctx.principal.orgId);
  if (!config) throw notFound('SSO configuration');
  return config;
}

/** `GET /organizations/{orgId}/sso` (owners and admins). The OIDC client secret shows only as `clientSecretSet`. */
export function getSso(ctx: Ctx, orgId: string): SsoConfig {
  requireOrg(ctx, orgId);
  // Permission first: the configuration is the organization's one singleton, so a 404 before the 403 would tell
  // a member whether single sign-on is configured.
  requirePermission(ctx, 'sso:read');
  return loadConfig(ctx);
}

/**
 * The consistency rules the schema alone cannot state (`422` naming the field): a custom provider fixes the protocol;
 * SAML takes exactly one of the metadata URL or XML and no OIDC field; OIDC takes issuer, client id and a client
 * secret (which may be omitted when one is already stored for OIDC) and no SAML field.
 */
function checkConsistency(input: SsoPut, stored: SsoConfig | undefined): void {
  if (input.provider === 'custom-saml' && input.protocol !== 'saml') {
    throw invalidField('protocol', 'the custom-saml provider uses the saml protocol');
  }
  if (input.provider === 'custom-oidc' && input.protocol !== 'oidc') {
    throw invalidField('protocol', 'the custom-oidc provider uses the oidc protocol');
  }
  const [own, foreign] = input.protocol === 'saml' ? [SAML_FIELDS, OIDC_FIELDS] : [OIDC_FIELDS, SAML_FIELDS];
  for (const field of foreign) {
    if (input[field] !== undefined) throw invalidField(field, `not used with the ${input.protocol} protocol`);
  }
  if (input.protocol === 'saml') {
    if (input.metadataUrl === undefined && input.metadataXml === undefined) {
      throw invalidField('metadataUrl', 'SAML needs metadataUrl or metadataXml');
    }
    if (input.metadataUrl !== undefined && input.metadataXml !== undefined) {
      throw invalidField('metadataXml', 'give metadataUrl or metadataXml, not both');
    }
    return;
  }
  for (const field of own) {
    if (field === 'clientSecret' && stored?.protocol === 'oidc' && stored.clientSecretSet) continue;
    if (input[field] === undefined) throw invalidField(field, 'required for the oidc protocol');
  }
}

/**
 * `PUT /organizations/{orgId}/sso` (owners): creates or replaces the configuration. Omitted optional fields are
 * cleared, except `enabled` (kept; `false` for a new configuration) and an OIDC `clientSecret` (kept when stored).
 */
export function putSso(ctx: Ctx, orgId: string, input: SsoPut): SsoConfig {
  requireOrg(ctx, orgId);
  return ctx.tx(() => {
    const stored = ctx.stores.sso.get(orgId);
    requirePermission(ctx, 'sso:write');
    checkConsistency(input, stored);
    const now = ctx.now();
    const clientSecret = input.protocol === 'oidc' ? (input.clientSecret ?? ctx.stores.sso.clientSecret(orgId)) : null;
    const config: SsoConfig = {
      organizationId: orgId,
      protocol: input.protocol,
      provider: input.provider,
      enabled: input.enabled ?? stored?.enabled ?? false,
      metadataUrl: input.metadataUrl ?? null,
      metadataXml: input.metadataXml ?? null,
      issuer: input.issuer ?? null,
      clientId: input.clientId ?? null,
      clientSecretSet: clientSecret !== null,
      attributeMapping: input.attributeMapping,
      domains: [...new Set((input.domains ?? []).map((d) => d.toLowerCase()))],
      createdAt: stored?.createdAt ?? now,
      updatedAt: now,
    };
    const { clientSecretSet: _, ...write } = config;
    ctx.stores.sso.put({ ...write, clientSecret });
    ctx.emit(
      'sso.updated',
      { type: 'organization', id: orgId },
      {
        created: stored === undefined,
        protocol: config.protocol,
        provider: config.provider,
        enabled: config.enabled,
        clientSecretChanged: input.clientSecret !== undefined,
      },
    );
    return config;
  });
}

/** `DELETE /organizations/{orgId}/sso` (owners): members sign in with their passwords again. */
export function deleteSso(ctx: Ctx, orgId: string): void {
  requireOrg(ctx, orgId);
  ctx.tx(() => {
    requirePermission(ctx, 'sso:write');
    const config = loadConfig(ctx);
    ctx.stores.sso.remove(orgId);
    ctx.emit(
      'sso.deleted',
      { type: 'organization', id: orgId },
      { protocol: config.protocol, provider: config.provider },
    );
  });
}
