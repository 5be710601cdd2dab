import { publicRoute, type RouteDef } from '../route.js';

const tag = 'sso';
const access = 'public' as const;

/** The addresses identity providers send people back to (contract §9): public, answered with HTML pages. */
export const ssoSignInRoutes: RouteDef[] = [
  publicRoute({
    method: 'GET',
    path: '/sso/oidc/{orgId}/callback',
    operationId: 'oidcCallback',
    summary: "OpenID Connect redirect URI: the organization's OpenID provider sends the person back here",
    description:
      'Query: `code`, `state` and `iss` (or `error`). The state is single-use, for this organization, at most ' +
      '10 minutes old; the code is exchanged with PKCE and the ID token checked (signature against the JWKS, ' +
      '`iss`, `aud`, `exp`, `nonce`) before the person is provisioned and the sign-in goes on (the OAuth client ' +
      'gets its code: 303). A refusal is an HTML page (400/403) naming the check that failed.',
    tag,
    access,
    // Loaded on first use: openid-client stays out of every other start (scripts/bundle.mjs).
    handler: async (ctx, c) => (await import('../../sso/oidc.js')).oidcCallback(ctx, c),
  }),
];
