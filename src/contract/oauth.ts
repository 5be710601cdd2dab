// The public side of signing in, as clients see it: the OAuth endpoints' forms and answers (RFC 6749, 7009, 8414,
// 8628), and the forms of the pages people fill in. The server's handlers answer with these shapes; the OpenAPI
// document describes the endpoints from them (contract/endpoints/auth.ts, sso-sign-in.ts).
import * as z from 'zod';
import { lazySchema } from './common.js';
import { PERMISSIONS } from './permissions.js';

const REF = '#/components/schemas/';

/** The device-code grant's type (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The error codes of RFC 6749 §4.1.2.1 / §5.2, RFC 7009 and RFC 8628 §3.5 the OAuth endpoints answer with. */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'unsupported_response_type',
  'unsupported_token_type',
  'invalid_scope',
  'access_denied',
  'server_error',
  'authorization_pending',
  'slow_down',
  'expired_token',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** The RFC 6749 §5.2 error body of the OAuth endpoints (and their `429`, `rate_limit_exceeded`). */
export const oauthErrorBodySchema = lazySchema(() =>
  z.object({
    error: z.enum([...OAUTH_ERROR_CODES, 'rate_limit_exceeded']),
    error_description: z.string().optional(),
  }),
).meta({ id: 'OAuthError' });
export type OAuthErrorBody = z.infer<typeof oauthErrorBodySchema>;

/** RFC 7636 §4.1: a code verifier is 43–128 characters of the unreserved set. */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge: base64url of a SHA-256 digest, 43 characters without padding. */
export const S256_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;
/** An organization id where a sign-in may name one (`org`). */
export const ORG_ID = /^org_[A-Za-z0-9]{1,64}$/;

const clientId = z.string().min(1).meta({ description: 'The OAuth client; public clients name themselves here.' });
/** Space-separated permissions (docs/api.md, "Conventions"). */
const scope = z.string().meta({ description: 'Space-separated permissions, e.g. `users:read projects:read`.' });
/** An organization id, where a sign-in may choose one. */
const orgId = z.string().regex(ORG_ID);

// The OAuth requests and the pages' forms are loose objects: their endpoints ignore parameters they do not know
// (RFC 6749 §3.2), so the document must not refuse them.
const grant = <G extends string, S extends z.ZodRawShape>(grantType: G, shape: S, id: string) =>
  z.looseObject({ grant_type: z.literal(grantType), client_id: clientId, ...shape }).meta({ id });

/**
 * `POST /auth/token`: one of three grants, form-encoded (or a JSON object of strings). Unknown parameters are ignored
 * (RFC 6749 §3.2).
 */
export const tokenRequestSchema = lazySchema(() =>
  z
    .discriminatedUnion('grant_type', [
      grant(
        'authorization_code',
        {
          code: z.string().min(1),
          redirect_uri: z.string().min(1),
          code_verifier: z.string().regex(CODE_VERIFIER),
        },
        'AuthorizationCodeGrant',
      ),
      grant('refresh_token', { refresh_token: z.string().min(1), scope: scope.optional() }, 'RefreshTokenGrant'),
      grant(DEVICE_CODE_GRANT, { device_code: z.string().min(1) }, 'DeviceCodeGrant'),
    ])
    .meta({
      discriminator: {
        propertyName: 'grant_type',
        mapping: {
          authorization_code: `${REF}AuthorizationCodeGrant`,
          refresh_token: `${REF}RefreshTokenGrant`,
          [DEVICE_CODE_GRANT]: `${REF}DeviceCodeGrant`,
        },
      },
    }),
).meta({ id: 'TokenRequest' });
export type TokenRequest = z.infer<typeof tokenRequestSchema>;

/** The RFC 6749 §5.1 answer of `POST /auth/token`. */
export const tokenResponseSchema = lazySchema(() =>
  z.object({
    access_token: z.string().meta({ description: 'An ES256 JWT (RFC 9068).' }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    refresh_token: z.string(),
    scope,
  }),
).meta({ id: 'TokenResponse' });
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** `POST /auth/revoke` (RFC 7009): a refresh or access token; the hint is ignored. */
export const revokeRequestSchema = lazySchema(() =>
  z.looseObject({
    token: z.string().min(1),
    client_id: clientId,
    token_type_hint: z.enum(['refresh_token', 'access_token']).optional(),
  }),
).meta({ id: 'RevokeRequest' });

/** `POST /auth/device/code` (RFC 8628 §3.1). */
export const deviceAuthorizationRequestSchema = lazySchema(() =>
  z.looseObject({ client_id: clientId, scope: scope.optional(), org: orgId.optional() }),
).meta({ id: 'DeviceAuthorizationRequest' });

/** The RFC 8628 §3.2 answer. */
export const deviceAuthorizationResponseSchema = lazySchema(() =>
  z.object({
    device_code: z.string(),
    user_code: z.string().meta({ example: 'WDJB-MJHT' }),
    verification_uri: z.string(),
    verification_uri_complete: z.string(),
    expires_in: z.number().int(),
    interval: z.number().int(),
  }),
).meta({ id: 'DeviceAuthorizationResponse' });
export type DeviceAuthorizationResponse = z.infer<typeof deviceAuthorizationResponseSchema>;

/** The authorization server's metadata (RFC 8414 §2). */
export const authServerMetadataSchema = lazySchema(() =>
  z.object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    revocation_endpoint: z.string(),
    device_authorization_endpoint: z.string(),
    jwks_uri: z.string(),
    response_types_supported: z.array(z.literal('code')),
    response_modes_supported: z.array(z.literal('query')),
    grant_types_supported: z.array(z.enum(['authorization_code', 'refresh_token', DEVICE_CODE_GRANT])),
    code_challenge_methods_supported: z.array(z.literal('S256')),
    token_endpoint_auth_methods_supported: z.array(z.literal('none')),
    revocation_endpoint_auth_methods_supported: z.array(z.literal('none')),
    scopes_supported: z.array(z.enum(PERMISSIONS)),
    authorization_response_iss_parameter_supported: z.boolean(),
    access_token_signing_alg_values_supported: z.array(z.literal('ES256')),
    service_documentation: z.string(),
  }),
).meta({ id: 'AuthServerMetadata' });
export type AuthServerMetadata = z.infer<typeof authServerMetadataSchema>;

/** The public keys access tokens are signed with (RFC 7517), newest first. */
export const jwksSchema = lazySchema(() =>
  z.object({
    keys: z.array(
      z.object({
        kty: z.literal('EC'),
        crv: z.literal('P-256'),
        x: z.string(),
        y: z.string(),
        kid: z.string().meta({ description: 'The RFC 7638 thumbprint.' }),
        alg: z.literal('ES256'),
        use: z.literal('sig'),
      }),
    ),
  }),
).meta({ id: 'Jwks' });

/** The query of `GET /auth/authorize` (RFC 6749 §4.1.1 with RFC 7636 PKCE, S256 only). */
export const authorizeQuerySchema = z.looseObject({
  response_type: z.literal('code'),
  client_id: clientId,
  redirect_uri: z
    .string()
    .meta({ description: 'Exactly as registered; a loopback IP literal registered without a port may use any port.' }),
  code_challenge: z.string().regex(S256_CHALLENGE),
  code_challenge_method: z.literal('S256'),
  state: z.string().max(2048).optional(),
  scope: scope.optional().meta({ description: 'Default: every permission the user holds.' }),
  org: orgId.optional().meta({ description: 'The organization to sign in to; otherwise the user picks one.' }),
  login_hint: z
    .string()
    .optional()
    .meta({ description: "An e-mail: its domain's single sign-on, if any, is started at once." }),
  password: z
    .string()
    .optional()
    .meta({ description: 'Present: ask for a password even where single sign-on is set (`password=1`).' }),
});

/** A passkey's credential as the sign-in pages' script posts it (docs/mfa.md). */
export const passkeyFieldSchema = z
  .string()
  .optional()
  .meta({
    description:
      "A passkey's credential as @simplewebauthn/browser gives it (JSON): to sign in without a password, as the " +
      'second factor, or to enroll it.',
  });

/** What the sign-in page posts back: the authorization request again, the CSRF token and the step's fields. */
export const authorizeFormSchema = lazySchema(() =>
  authorizeQuerySchema.extend({
    csrf: z.string().meta({ description: 'The token of the page, matching the `plat_csrf` cookie.' }),
    email: z.string().optional(),
    password: z.string().optional(),
    ticket: z
      .string()
      .optional()
      .meta({ description: 'A step after the password (second factor, enrolment, organization): how far it got.' }),
    code: z.string().optional().meta({ description: 'The second-factor or enrolment step: a TOTP or recovery code.' }),
    factor_id: z.string().optional().meta({ description: 'The enrolment step: the factor being set up.' }),
    passkey: passkeyFieldSchema,
  }),
).meta({ id: 'AuthorizeForm' });

/** What the device page posts back. */
export const deviceFormSchema = lazySchema(() =>
  z.looseObject({
    csrf: z.string(),
    user_code: z.string(),
    email: z.string().optional(),
    password: z.string().optional(),
    action: z.enum(['approve', 'deny']).optional(),
    ticket: z.string().optional(),
    org: orgId.optional(),
    code: z.string().optional(),
    factor_id: z.string().optional(),
    passkey: passkeyFieldSchema,
  }),
).meta({ id: 'DeviceForm' });

/** What the invitation page posts back: a new account sets a password (twice), an existing one confirms its own. */
export const invitationFormSchema = lazySchema(() =>
  z.looseObject({
    token: z.string(),
    csrf: z.string(),
    name: z.string().meta({ description: '1–100 characters once trimmed.' }),
    password: z.string(),
    confirm: z.string().optional(),
  }),
).meta({ id: 'InvitationForm' });

/** What an identity provider's page posts to the SAML assertion consumer service (HTTP-POST binding). */
export const samlPostSchema = lazySchema(() =>
  z.looseObject({
    SAMLResponse: z.string().meta({ description: 'The base64 of the SAML response, at most 128 KiB decoded.' }),
    RelayState: z.string().optional(),
  }),
).meta({ id: 'SamlPost' });

/** The query an OpenID provider sends its redirect URI back with (OpenID Connect Core §3.1.2.5–6). */
export const oidcCallbackQuerySchema = z.looseObject({
  state: z.string(),
  code: z.string().optional(),
  iss: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});
