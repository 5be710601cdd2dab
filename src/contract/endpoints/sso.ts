import { endpoint } from '../endpoint.js';
import { ssoConfigSchema, ssoPutSchema, ssoServiceProviderSchema, ssoTestSchema } from '../sso.js';
import { orgParams, ssoTestParams } from './params.js';

const tag = 'sso';

export const sso = {
  get: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/sso',
    operationId: 'getSso',
    summary: "Get the organization's single sign-on configuration (404 when there is none)",
    description: 'The OIDC client secret is write-only: the record shows `clientSecretSet` instead.',
    tag,
    access: 'sso:read',
    params: orgParams,
    response: ssoConfigSchema,
  }),
  put: endpoint({
    method: 'PUT',
    path: '/organizations/{orgId}/sso',
    operationId: 'putSso',
    summary: 'Create or replace the single sign-on configuration',
    description:
      '`custom-saml` needs protocol `saml`, `custom-oidc` protocol `oidc`. SAML takes exactly one of `metadataUrl` ' +
      'or `metadataXml` and no OIDC field; OIDC takes `issuer`, `clientId` and `clientSecret` and no SAML field ' +
      '(422 naming the field). The identity provider is read at once — SAML metadata (uploaded, or fetched from ' +
      '`metadataUrl`), or the OIDC discovery document of `issuer` — and must be usable: an IdP SSO descriptor with ' +
      'an HTTP-Redirect SingleSignOnService and one to five signing certificates; discovery naming the same issuer. ' +
      'Every save reads it again; when that fails and the configuration names the same `metadataUrl` or `issuer` ' +
      'as the stored one, what was read last is kept (POST …/sso/refresh insists instead). Another identity ' +
      'provider (another SAML entity id or OIDC issuer) forgets the identities linked through the old one, as ' +
      'DELETE does (people are linked again by e-mail). Fetches ' +
      'take at most 5 s and 1 MiB, over https (plain http to a loopback address only). Omitted optional fields are ' +
      'cleared, except `enabled` (kept; false for a new configuration) and an OIDC `clientSecret` already stored ' +
      '(kept). Each domain must be one the organization verified (`POST …/domains`, then verify) or holds as ' +
      '`legacy` from an earlier release (422 naming it).',
    tag,
    access: 'sso:write',
    accessNote: 'Owners only (admins lack sso:write).',
    params: orgParams,
    body: ssoPutSchema,
    response: ssoConfigSchema,
  }),
  serviceProvider: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/sso/service-provider',
    operationId: 'getSsoServiceProvider',
    summary:
      'The addresses to enter at the identity provider: SP entity id, ACS URL, SP metadata URL, OIDC redirect URI',
    description:
      "Under the instance's public URL (`plat serve --public-url`); available before any configuration exists, since " +
      "the identity provider's side is usually set up first.",
    tag,
    access: 'sso:read',
    params: orgParams,
    response: ssoServiceProviderSchema,
  }),
  refresh: endpoint({
    method: 'POST',
    path: '/organizations/{orgId}/sso/refresh',
    operationId: 'refreshSso',
    summary: 'Read the identity provider again: fetch its metadata (or OIDC discovery document), or parse it again',
    description:
      'For an identity provider that rotated its certificates or moved its endpoints, or a configuration saved ' +
      'before the platform read identity providers (0.1.0). Uploaded SAML metadata is parsed again; to change it, ' +
      'PUT the new document. 422 naming the field, as PUT, when it is not usable.',
    tag,
    access: 'sso:write',
    accessNote: 'Owners only (admins lack sso:write).',
    params: orgParams,
    response: ssoConfigSchema,
  }),
  startTest: endpoint({
    method: 'POST',
    path: '/organizations/{orgId}/sso/tests',
    operationId: 'startSsoTest',
    summary: 'Start a test sign-in through the identity provider (plat sso test)',
    description:
      'Answers `signInUrl`, to open in a browser and sign in there; the test then records what the platform received ' +
      '(`profile`: the mapped fields and the raw attributes) or the check that failed (`failure`). Nobody is signed in ' +
      'and nothing is created; a disabled configuration can be tested before it is enabled. Kept an hour. 409 while ' +
      'the configuration was never read from its identity provider (saved by 0.1.0: refresh it first).',
    tag,
    access: 'sso:read',
    params: orgParams,
    response: ssoTestSchema,
    status: 201,
    location: { get: 'getSsoTest', from: { orgId: 'organizationId', testId: 'id' } },
  }),
  getTest: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/sso/tests/{testId}',
    operationId: 'getSsoTest',
    summary: 'The outcome of a test sign-in: pending, succeeded (with the profile received) or failed (with the check)',
    tag,
    access: 'sso:read',
    params: ssoTestParams,
    response: ssoTestSchema,
  }),
  delete: endpoint({
    method: 'DELETE',
    path: '/organizations/{orgId}/sso',
    operationId: 'deleteSso',
    summary: 'Delete the single sign-on configuration',
    tag,
    access: 'sso:write',
    accessNote: 'Owners only (admins lack sso:write).',
    params: orgParams,
    status: 204,
  }),
} as const;
