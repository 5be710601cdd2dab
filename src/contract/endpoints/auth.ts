import { refreshRequestSchema, refreshResponseSchema, whoamiSchema } from '../auth.js';
import { endpoint } from '../endpoint.js';

const tag = 'auth';
const access = 'public' as const;

export const oauth = {
  metadata: endpoint({
    method: 'GET',
    path: '/auth/.well-known/openid-configuration',
    operationId: 'getAuthServerMetadata',
    summary: 'Authorization server metadata (RFC 8414); also at /.well-known/oauth-authorization-server/v2/auth',
    tag,
    access,
  }),
  jwks: endpoint({
    method: 'GET',
    path: '/auth/jwks',
    operationId: 'getJwks',
    summary: 'The public keys (JWKS) access tokens are signed with (ES256)',
    tag,
    access,
  }),
  authorize: endpoint({
    method: 'GET',
    path: '/auth/authorize',
    operationId: 'authorize',
    summary: 'Authorization endpoint: the HTML sign-in page (code flow, PKCE S256 only)',
    description:
      'Query: `response_type=code`, `client_id`, `redirect_uri` (exact; a loopback IP literal may use any port), ' +
      '`code_challenge` + `code_challenge_method=S256`, optional `state`, `scope` (space-separated permissions; ' +
      'default every permission the user holds) and `org` (the organization to sign in to; otherwise the user picks ' +
      'one when they have several). Redirects back with `code`, `state` and `iss`, or an RFC 6749 error.',
    tag,
    access,
  }),
  authorizeSubmit: endpoint({
    method: 'POST',
    path: '/auth/authorize',
    operationId: 'authorizeSubmit',
    summary: 'The sign-in form posted back (e-mail, password, CSRF token, the request parameters)',
    tag,
    access,
  }),
  token: endpoint({
    method: 'POST',
    path: '/auth/token',
    operationId: 'token',
    summary: 'Token endpoint: authorization_code (PKCE), refresh_token and device_code grants',
    description:
      'Form-encoded (JSON also accepted), public clients send `client_id`. Errors in the RFC 6749 §5.2 form. ' +
      'Codes are single-use (60 s); refresh tokens rotate on every use, and reusing one revokes its session.',
    tag,
    access,
  }),
  refresh: endpoint({
    method: 'POST',
    path: '/auth/refresh',
    operationId: 'refresh',
    summary: 'Refresh in JSON: { refreshToken, clientId } → a new access token and the rotated refresh token',
    tag,
    access,
    body: refreshRequestSchema,
    response: refreshResponseSchema,
  }),
  revoke: endpoint({
    method: 'POST',
    path: '/auth/revoke',
    operationId: 'revoke',
    summary: 'Token revocation (RFC 7009): ends the session of a refresh or access token; unknown tokens answer 200',
    tag,
    access,
  }),
  deviceAuthorization: endpoint({
    method: 'POST',
    path: '/auth/device/code',
    operationId: 'deviceAuthorization',
    summary: 'Device authorization (RFC 8628): a device code to poll with, a user code to enter at /auth/device',
    tag,
    access,
  }),
  devicePage: endpoint({
    method: 'GET',
    path: '/auth/device',
    operationId: 'devicePage',
    summary: 'The HTML page where a signed-in user enters a device’s user code and approves or denies it',
    tag,
    access,
  }),
  devicePageSubmit: endpoint({
    method: 'POST',
    path: '/auth/device',
    operationId: 'devicePageSubmit',
    summary: 'The device page posted back',
    tag,
    access,
  }),
  invitationPage: endpoint({
    method: 'GET',
    path: '/auth/invitations/accept',
    operationId: 'invitationPage',
    summary: 'The HTML page an invitation e-mail links to: set your name and password',
    tag,
    access,
  }),
  acceptInvitation: endpoint({
    method: 'POST',
    path: '/auth/invitations/accept',
    operationId: 'acceptInvitation',
    summary: 'The invitation page posted back: the user becomes active with a verified e-mail',
    tag,
    access,
  }),
} as const;

export const auth = {
  whoami: endpoint({
    method: 'GET',
    path: '/auth/whoami',
    operationId: 'whoami',
    summary: 'Who the credential (API key or access token) acts as, where, and with which scopes',
    tag,
    access: 'authenticated',
    response: whoamiSchema,
  }),
} as const;
