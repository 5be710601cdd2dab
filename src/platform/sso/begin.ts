import type { BaseCtx } from '../context.js';
import type { StoredSso } from '../store/sso.js';
import type { SsoContinuation } from '../store/sso-sign-in.js';
import { newSsoRequest } from './sign-in.js';

export { ssoForEmail } from './routing.js';

/**
 * Starts a sign-in through the organization's identity provider: records the request and what it continues, and
 * answers the address to send the browser to (the SAML AuthnRequest by HTTP-Redirect, or the OIDC authorization
 * request). `loginHint` is the e-mail the person already gave, passed on where the protocol allows.
 */
export async function ssoSignInUrl(
  ctx: BaseCtx,
  config: StoredSso,
  continuation: SsoContinuation,
  loginHint?: string,
): Promise<string> {
  const request = await newSsoRequest(ctx, config, continuation);
  if (config.protocol === 'saml') return (await import('./saml.js')).signInUrl(ctx, config, request);
  const oidc = await import('./oidc.js');
  const { isOidcSso } = await import('./oidc-client.js');
  if (!isOidcSso(config)) throw new Error(`the SSO configuration of ${config.organizationId} is not usable for OIDC`);
  return oidc.signInUrl(ctx, config, request, { loginHint });
}
