import { ssoSignIn } from '../../../contract/endpoints/sso-sign-in.js';
import { bind } from '../route.js';

// Loaded on first use: openid-client, node-saml and @xmldom/xmldom stay out of every other start (scripts/bundle.mjs).
const acs = () => import('../../sso/saml-acs.js');

export const ssoSignInRoutes = bind(ssoSignIn, {
  oidcCallback: async (ctx, c) => (await import('../../sso/oidc.js')).oidcCallback(ctx, c),
  samlMetadata: async (ctx, c) => (await acs()).samlMetadataEndpoint(ctx, c),
  samlAcs: async (ctx, c) => (await acs()).samlAcs(ctx, c),
});
