import * as z from 'zod';
import { lazySchema, timestampSchema } from './common.js';

export const SSO_PROTOCOLS = ['saml', 'oidc'] as const;
export const SSO_PROVIDERS = [
  'okta',
  'azure-ad',
  'google-workspace',
  'onelogin',
  'custom-saml',
  'custom-oidc',
] as const;

/** The roles a user provisioned through single sign-on may get: never `owner` (contract §9). */
export const SSO_DEFAULT_ROLES = ['member', 'admin'] as const;

/**
 * An organization's single sign-on configuration. The OIDC client secret is write-only. The `sp*`, `acsUrl` and
 * `redirectUri` fields are what the identity provider's administrator enters on their side; `idp*` and
 * `certificates` are what the platform read from the identity provider when the configuration was saved or refreshed.
 */
export const ssoConfigSchema = lazySchema(() =>
  z.object({
    organizationId: z.string(),
    protocol: z.enum(SSO_PROTOCOLS),
    provider: z.enum(SSO_PROVIDERS),
    enabled: z.boolean(),
    metadataUrl: z.string().nullable(),
    metadataXml: z.string().nullable(),
    issuer: z.string().nullable(),
    clientId: z.string().nullable(),
    clientSecretSet: z.boolean(),
    attributeMapping: z.record(z.string(), z.string()),
    domains: z.array(z.string()),
    allowIdpInitiated: z.boolean(),
    defaultRole: z.enum(SSO_DEFAULT_ROLES),
    spEntityId: z.string(),
    spMetadataUrl: z.string(),
    acsUrl: z.string(),
    redirectUri: z.string(),
    idpEntityId: z.string().nullable(),
    idpSsoUrl: z.string().nullable(),
    certificates: z.array(z.object({ fingerprint: z.string(), notAfter: timestampSchema })),
    metadataFetchedAt: timestampSchema.nullable(),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
).meta({ id: 'SsoConfig' });
export type SsoConfig = z.infer<typeof ssoConfigSchema>;

const domainSchema = z
  .string()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'must be a domain name');

/** What the identity provider's administrator enters on their side: the platform as a SAML SP and an OIDC client. */
export const ssoServiceProviderSchema = lazySchema(() =>
  z.object({
    organizationId: z.string(),
    spEntityId: z.string(),
    spMetadataUrl: z.string(),
    acsUrl: z.string(),
    redirectUri: z.string(),
  }),
).meta({ id: 'SsoServiceProvider' });
export type SsoServiceProvider = z.infer<typeof ssoServiceProviderSchema>;

/**
 * A test sign-in through the identity provider (`plat sso test`): open `signInUrl` in a browser, sign in there, and
 * the test records what the platform received (`profile`) or the check that failed (`failure`). Nobody is signed in
 * and nothing is created; a disabled configuration can be tested before it is enabled.
 */
export const ssoTestSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    organizationId: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    signInUrl: z.string().nullable(),
    profile: z
      .object({
        subject: z.string(),
        mapped: z.object({
          email: z.string().nullable(),
          name: z.string().nullable(),
          metadata: z.record(z.string(), z.string()),
        }),
        attributes: z.record(z.string(), z.array(z.string())),
      })
      .nullable(),
    failure: z.object({ status: z.number().int(), check: z.string() }).nullable(),
    createdAt: timestampSchema,
    expiresAt: timestampSchema,
  }),
).meta({ id: 'SsoTest' });
export type SsoTest = z.infer<typeof ssoTestSchema>;

export const ssoPutSchema = lazySchema(() =>
  z.strictObject({
    protocol: z.enum(SSO_PROTOCOLS),
    provider: z.enum(SSO_PROVIDERS),
    enabled: z.boolean().optional(),
    metadataUrl: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    metadataXml: z.string().min(1).max(200_000).optional(),
    issuer: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    clientId: z.string().min(1).max(500).optional(),
    clientSecret: z.string().min(1).max(2000).optional(),
    attributeMapping: z
      .record(z.string().min(1).max(64), z.string().min(1).max(256))
      .refine((m) => 'email' in m, 'must map email'),
    domains: z.array(domainSchema).max(50).optional(),
    allowIdpInitiated: z.boolean().optional(),
    defaultRole: z.enum(SSO_DEFAULT_ROLES).optional(),
  }),
).meta({ id: 'SsoPut' });
export type SsoPut = z.infer<typeof ssoPutSchema>;
