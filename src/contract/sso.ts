import * as z from 'zod';
import { lazySchema, timestampSchema } from './common.js';
import { DOMAINS_PER_ORGANIZATION, domainNameSchema } from './domains.js';

export const SSO_PROTOCOLS = ['saml', 'oidc'] as const;
/** The identity providers that speak both protocols; `custom-saml` and `custom-oidc` speak one each. */
const VENDORS = ['okta', 'azure-ad', 'google-workspace', 'onelogin'] as const;
export const SSO_PROVIDERS = [...VENDORS, 'custom-saml', 'custom-oidc'] as const;
export type SsoProvider = (typeof SSO_PROVIDERS)[number];
/** The providers each protocol takes: the custom ones fix their protocol. */
const SAML_PROVIDERS = [...VENDORS, 'custom-saml'] as const;
const OIDC_PROVIDERS = [...VENDORS, 'custom-oidc'] as const;

/** The roles a user provisioned through single sign-on may get: never `owner` (docs/sso.md). */
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

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' });

/** What both protocols' configurations hold. */
const ssoPutCommon = {
  enabled: z.boolean().optional(),
  attributeMapping: z
    .object({ email: z.string().min(1).max(256) })
    .catchall(z.string().min(1).max(256))
    .refine((m) => Object.keys(m).every((k) => k.length >= 1 && k.length <= 64), 'field names are 1–64 characters')
    .meta({
      description: 'Claim or attribute names by profile field; `email` is required.',
      propertyNames: { minLength: 1, maxLength: 64 },
    }),
  domains: z.array(domainNameSchema).max(DOMAINS_PER_ORGANIZATION).optional(),
  allowIdpInitiated: z.boolean().optional(),
  defaultRole: z.enum(SSO_DEFAULT_ROLES).optional(),
};

/** A SAML configuration: the identity provider's metadata, by URL or uploaded (exactly one of the two). */
export const ssoPutSamlSchema = lazySchema(() =>
  z
    .strictObject({
      protocol: z.literal('saml'),
      provider: z.enum(SAML_PROVIDERS),
      metadataUrl: httpUrl.optional(),
      metadataXml: z.string().min(1).max(200_000).optional(),
      ...ssoPutCommon,
    })
    .meta({
      oneOf: [
        { properties: { metadataUrl: { type: 'string' } }, required: ['metadataUrl'] },
        { properties: { metadataXml: { type: 'string' } }, required: ['metadataXml'] },
      ],
    }),
).meta({ id: 'SsoPutSaml' });
export type SsoPutSaml = z.infer<typeof ssoPutSamlSchema>;

/** An OpenID Connect configuration: the provider's issuer and the platform's client there. */
export const ssoPutOidcSchema = lazySchema(() =>
  z.strictObject({
    protocol: z.literal('oidc'),
    provider: z.enum(OIDC_PROVIDERS),
    issuer: httpUrl,
    clientId: z.string().min(1).max(500),
    clientSecret: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .meta({ description: 'Write-only. Required unless the configuration already holds one for OIDC (then kept).' }),
    ...ssoPutCommon,
  }),
).meta({ id: 'SsoPutOidc' });
export type SsoPutOidc = z.infer<typeof ssoPutOidcSchema>;

/** `PUT /organizations/{orgId}/sso`: one protocol's configuration, told apart by `protocol`. */
export const ssoPutSchema = lazySchema(() =>
  z.discriminatedUnion('protocol', [ssoPutSamlSchema, ssoPutOidcSchema]).meta({
    discriminator: {
      propertyName: 'protocol',
      mapping: { saml: '#/components/schemas/SsoPutSaml', oidc: '#/components/schemas/SsoPutOidc' },
    },
  }),
).meta({ id: 'SsoPut' });
export type SsoPut = z.infer<typeof ssoPutSchema>;

/** A configuration assembled field by field (the CLI's flags): the server checks it as `SsoPut`. */
export type SsoPutDraft = Pick<SsoPutSaml, 'enabled' | 'domains' | 'allowIdpInitiated' | 'defaultRole'> &
  Partial<
    Pick<SsoPutSaml, 'metadataUrl' | 'metadataXml'> & Pick<SsoPutOidc, 'issuer' | 'clientId' | 'clientSecret'>
  > & {
    protocol: (typeof SSO_PROTOCOLS)[number];
    provider: SsoProvider;
    attributeMapping: Record<string, string>;
  };

/** Either protocol's configuration with the other's fields absent: what code reading any of them takes. */
export type SsoPutFields =
  | (SsoPutSaml & { issuer?: undefined; clientId?: undefined; clientSecret?: undefined })
  | (SsoPutOidc & { metadataUrl?: undefined; metadataXml?: undefined });
