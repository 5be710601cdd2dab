import * as z from 'zod';
import { refreshRequestSchema, refreshResponseSchema, whoamiSchema } from '../auth.js';
import { endpoint } from '../endpoint.js';
import {
  authorizeFormSchema,
  authorizeQuerySchema,
  authServerMetadataSchema,
  deviceAuthorizationRequestSchema,
  deviceAuthorizationResponseSchema,
  deviceFormSchema,
  invitationFormSchema,
  jwksSchema,
  revokeRequestSchema,
  tokenRequestSchema,
  tokenResponseSchema,
} from '../oauth.js';
import { envelope, oauthError, onward, page } from './answers.js';

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
    answers: { 200: { description: 'The metadata', body: authServerMetadataSchema, headers: ['Cache-Control'] } },
  }),
  jwks: endpoint({
    method: 'GET',
    path: '/auth/jwks',
    operationId: 'getJwks',
    summary: 'The public keys (JWKS) access tokens are signed with (ES256)',
    tag,
    access,
    answers: { 200: { description: 'The keys, newest first', body: jwksSchema, headers: ['Cache-Control'] } },
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
    query: authorizeQuerySchema,
    answers: {
      200: page('The sign-in page'),
      303: onward(
        'Back to the client with an RFC 6749 `error` (a bad request from a known client and redirect URI), or on to ' +
          "the identity provider of `login_hint`'s domain",
      ),
      400: page('An unknown client or redirect URI: a page, never a redirect'),
    },
  }),
  authorizeSubmit: endpoint({
    method: 'POST',
    path: '/auth/authorize',
    operationId: 'authorizeSubmit',
    summary: 'The sign-in form posted back (e-mail, password, CSRF token, the request parameters)',
    tag,
    access,
    form: authorizeFormSchema,
    answers: {
      200: page(
        'The next step: the password, the second factor or its enrolment (docs/mfa.md), the recovery codes, the ' +
          'organization picker, or the hand-off to single sign-on',
      ),
      303: onward('Back to the client with `code`, `state` and `iss`, or an RFC 6749 `error`'),
      400: page('A missing field, an expired step, or a bad authorization request'),
      401: page('A wrong e-mail or password, a wrong second-factor code, or a passkey that did not verify'),
      403: page('A CSRF token that does not match, or a person whose single sign-on forbids a password'),
      429: {
        ...page('Too many failed sign-ins for the account or from the address, or wrong codes for the user', [
          'Retry-After',
        ]),
        alsoEnvelope: true,
      },
    },
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
    limit: 'token',
    form: tokenRequestSchema,
    formAsJson: true,
    answers: {
      200: { description: 'The tokens (RFC 6749 §5.1)', body: tokenResponseSchema, headers: ['Cache-Control'] },
      400: oauthError(
        '`invalid_request`, `invalid_grant`, `unsupported_grant_type`, `invalid_scope`, or a device grant still waiting (`authorization_pending`, `slow_down`, `expired_token`, `access_denied`)',
      ),
      401: oauthError('`invalid_client`: no `client_id`, or an unknown one', ['WWW-Authenticate']),
      429: oauthError("`rate_limit_exceeded`: the client's budget is spent", ['Retry-After']),
    },
  }),
  refresh: endpoint({
    method: 'POST',
    path: '/auth/refresh',
    operationId: 'refresh',
    summary: 'Refresh in JSON: { refreshToken, clientId } → a new access token and the rotated refresh token',
    tag,
    access,
    limit: 'refresh',
    body: refreshRequestSchema,
    response: refreshResponseSchema,
    answers: {
      200: { description: 'The tokens', body: refreshResponseSchema, headers: ['Cache-Control'] },
      400: envelope('A body that is not a JSON object, or a missing field'),
      401: envelope('An unknown client, or a refresh token that is invalid, reused, or of an ended session'),
      422: envelope('A field of the wrong type or length, or an unknown field'),
    },
  }),
  revoke: endpoint({
    method: 'POST',
    path: '/auth/revoke',
    operationId: 'revoke',
    summary: 'Token revocation (RFC 7009): ends the session of a refresh or access token; unknown tokens answer 200',
    tag,
    access,
    limit: 'revoke',
    form: revokeRequestSchema,
    formAsJson: true,
    answers: {
      200: { description: 'Revoked, or nothing to revoke; no body', headers: ['Cache-Control'] },
      400: oauthError('`invalid_request`, or `unauthorized_client` (a token issued to another client)'),
      401: oauthError('`invalid_client`', ['WWW-Authenticate']),
      429: oauthError("`rate_limit_exceeded`: the client's budget is spent", ['Retry-After']),
    },
  }),
  deviceAuthorization: endpoint({
    method: 'POST',
    path: '/auth/device/code',
    operationId: 'deviceAuthorization',
    summary: 'Device authorization (RFC 8628): a device code to poll with, a user code to enter at /auth/device',
    tag,
    access,
    form: deviceAuthorizationRequestSchema,
    formAsJson: true,
    answers: {
      200: {
        description: 'The codes (RFC 8628 §3.2)',
        body: deviceAuthorizationResponseSchema,
        headers: ['Cache-Control'],
      },
      400: oauthError('`invalid_request` or `invalid_scope`'),
      401: oauthError('`invalid_client`', ['WWW-Authenticate']),
    },
  }),
  devicePage: endpoint({
    method: 'GET',
    path: '/auth/device',
    operationId: 'devicePage',
    summary: 'The HTML page where a signed-in user enters a device’s user code and approves or denies it',
    tag,
    access,
    query: z.object({ user_code: z.string().optional().meta({ description: 'Filled in when valid.' }) }),
    answers: { 200: page('The form') },
  }),
  devicePageSubmit: endpoint({
    method: 'POST',
    path: '/auth/device',
    operationId: 'devicePageSubmit',
    summary: 'The device page posted back',
    tag,
    access,
    form: deviceFormSchema,
    answers: {
      200: page('The next step (the second factor, its enrolment, the organization), or the outcome'),
      400: page('An invalid or expired user code, a missing field, or an approval that failed'),
      401: page('A wrong e-mail or password, a wrong second-factor code, or a passkey that did not verify'),
      403: page('A CSRF token that does not match, a person whose single sign-on forbids a password, or no membership'),
      429: {
        ...page('Too many wrong codes or failed sign-ins from the address, or wrong second-factor codes', [
          'Retry-After',
        ]),
        alsoEnvelope: true,
      },
    },
  }),
  invitationPage: endpoint({
    method: 'GET',
    path: '/auth/invitations/accept',
    operationId: 'invitationPage',
    summary: 'The HTML page an invitation e-mail links to: set your name and password',
    tag,
    access,
    query: z.object({ token: z.string() }),
    answers: { 200: page('The form'), 404: page('No such invitation, or one used or expired') },
  }),
  acceptInvitation: endpoint({
    method: 'POST',
    path: '/auth/invitations/accept',
    operationId: 'acceptInvitation',
    summary: 'The invitation page posted back: the user becomes active with a verified e-mail',
    tag,
    access,
    form: invitationFormSchema,
    answers: {
      200: page('Welcome: the invitation is accepted'),
      400: page('A name or password that will not do, or passwords that differ'),
      401: page('A wrong password for an account that has one'),
      403: page('A CSRF token that does not match'),
      404: page('No such invitation, or one used or expired'),
      429: { ...page('Too many failed passwords for the account', ['Retry-After']), alsoEnvelope: true },
    },
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
    limit: 'whoami',
    response: whoamiSchema,
  }),
} as const;
