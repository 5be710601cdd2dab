import type { IDToken } from 'openid-client';
import { s256 } from '../auth/pkce.js';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import type { Reply } from '../http/reply.js';
import type { Refusal } from '../operations/sso-provision.js';
import type { SsoRequest } from '../store/sso-sign-in.js';
import { ssoAddresses } from './addresses.js';
import { SSO_CLOCK_SKEW_MS } from './clock-skew.js';
import { isOidcSso, type OidcSso, relyingParty } from './oidc-client.js';
import { profileFromClaims } from './oidc-profile.js';
import { refusalOf } from './oidc-refusals.js';
import { finishSsoSignIn, ssoFailure } from './sign-in.js';

/** What the platform asks of the person at the provider: who they are (`openid`), their e-mail and their profile. */
const SCOPE = 'openid email profile';

/**
 * Where to send the person to sign in at the organization's OpenID provider: its authorization endpoint with the
 * request's PKCE challenge (S256), `state` (the request's id) and `nonce`, and the e-mail they gave as `login_hint`
 * when it is known. Built from the discovery document stored with the configuration: no request to the provider.
 */
export async function signInUrl(
  ctx: BaseCtx,
  config: OidcSso,
  request: SsoRequest,
  opts: { loginHint?: string } = {},
): Promise<string> {
  if (!request.secret) throw new Error(`sign-in request ${request.id} was not made for an OpenID provider`);
  const { oidc, configuration } = await relyingParty(ctx, config, null);
  const url = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: ssoAddresses(ctx.publicUrl, config.organizationId).redirectUri,
    scope: SCOPE,
    code_challenge: s256(request.secret.codeVerifier),
    code_challenge_method: 'S256',
    state: request.id,
    nonce: request.secret.nonce,
    ...(opts.loginHint ? { login_hint: opts.loginHint } : {}),
  });
  return url.href;
}

/** Why a `state` could not be redeemed for this organization, in words (nothing was used up). */
async function unredeemable(ctx: BaseCtx, state: string, orgId: string): Promise<string> {
  const known = await ctx.stores.ssoSignIn.requestState(state);
  if (!known) return 'the sign-in request (state) is unknown';
  if (known.orgId !== orgId) return 'the sign-in request (state) belongs to another organization';
  if (known.usedAt !== null) return 'the sign-in request (state) was used already: an answer cannot be replayed';
  return 'the sign-in request (state) expired: it must come back within 10 minutes';
}

/**
 * The organization's configuration when it can still sign people in through an OpenID provider, or why not. A test
 * sign-in (`plat sso test`) may use a disabled configuration: testing it before enabling it is the point.
 */
async function usableConfig(ctx: BaseCtx, orgId: string, request: SsoRequest): Promise<OidcSso | Refusal> {
  const config = await ctx.stores.sso.get(orgId);
  if (!isOidcSso(config)) {
    return { status: 403, check: 'single sign-on through OpenID Connect is not configured for this organization' };
  }
  if (!config.enabled && request.continuation.kind !== 'test') {
    return { status: 403, check: 'single sign-on is disabled for this organization' };
  }
  return config;
}

/**
 * `GET /v2/sso/oidc/{orgId}/callback`: the provider sends the person back here (docs/sso.md). The `state` is
 * redeemed once, for this organization only, before anything else; the provider's error ends the sign-in; otherwise
 * the code is exchanged and the ID token checked by openid-client (PKCE, state, `iss` of the answer, the token's
 * signature against the provider's JWKS, `iss`, `aud`, `exp`, `nonce`), and the person it names signs in. Every
 * refusal is a page naming the check (400/403) that creates nothing; never a 500 for what a provider sent.
 */
export async function oidcCallback(ctx: BaseCtx, c: PageCall): Promise<Reply> {
  const orgId = c.req.param('orgId') as string;
  const query = new URL(c.req.url).search;
  const params = new URLSearchParams(query);
  const fail = (refusal: Refusal, request?: SsoRequest) =>
    ssoFailure(ctx, c, { ...refusal, orgId, protocol: 'oidc', request });

  const state = params.get('state');
  if (!state) return fail({ status: 400, check: 'the answer carries no state' });
  const request = await ctx.stores.ssoSignIn.redeemRequest(state, orgId, ctx.now());
  if (!request) return fail({ status: 400, check: await unredeemable(ctx, state, orgId) });
  if (request.protocol !== 'oidc' || !request.secret) {
    return fail({ status: 400, check: 'the sign-in request (state) was not sent to an OpenID provider' }, request);
  }
  const error = params.get('error');
  if (error !== null) return fail(providerError(error), request);
  const config = await usableConfig(ctx, orgId, request);
  if ('check' in config) return fail(config, request);
  const clientSecret = await ctx.stores.sso.clientSecret(orgId);
  if (clientSecret === null) {
    return fail(
      { status: 403, check: 'the client secret of the OpenID provider is not set: an owner must set it again' },
      request,
    );
  }

  let claims: IDToken | undefined;
  try {
    const { oidc, configuration } = await relyingParty(ctx, config, clientSecret);
    // The redirect URI the authorization request named, whatever address this request reached the platform at.
    const current = new URL(ssoAddresses(ctx.publicUrl, orgId).redirectUri);
    current.search = query;
    const tokens = await oidc.authorizationCodeGrant(configuration, current, {
      pkceCodeVerifier: request.secret.codeVerifier,
      expectedState: request.id,
      expectedNonce: request.secret.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
  } catch (err) {
    return fail(refusalOf(err), request);
  }
  if (!claims) return fail({ status: 400, check: 'the identity provider sent no ID token' }, request);
  // openid-client checks that `iat` is a number and not too old, not that it has passed: a token issued in the future
  // (a provider's clock far ahead, or a claim made up) is refused beyond the skew.
  if (claims.iat * 1000 > ctx.clock().getTime() + SSO_CLOCK_SKEW_MS) {
    return fail(
      { status: 400, check: `the ID token was issued in the future (iat more than 3 minutes ahead)` },
      request,
    );
  }
  // Read again: the configuration may have been disabled or pointed elsewhere while the provider answered.
  const now = await usableConfig(ctx, orgId, request);
  if ('check' in now) return fail(now, request);
  if (now.issuer !== config.issuer || now.clientId !== config.clientId) {
    return fail({ status: 403, check: 'the configuration changed during the sign-in' }, request);
  }
  return finishSsoSignIn(ctx, c, { config: now, request, profile: profileFromClaims(claims), method: 'oidc' });
}

/**
 * The provider's own error (RFC 6749 §4.1.2.1): `access_denied` means the person cancelled or was refused there (403);
 * any other is a failed request (400). Its code is shown only when it is one; its free text never is, since anyone can
 * put words on the platform's page through a link to this address.
 */
function providerError(error: string): Refusal {
  if (error === 'access_denied') {
    return { status: 403, check: 'the sign-in was cancelled or refused at the identity provider (access_denied)' };
  }
  const code = /^[a-z_]{1,64}$/.test(error) ? error : 'an error the platform does not know';
  return { status: 400, check: `the identity provider answered ${code}` };
}
