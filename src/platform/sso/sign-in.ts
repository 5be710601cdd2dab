import { randomBytes } from 'node:crypto';
import type { SignInMethod } from '../../contract/sessions.js';
import { type Html, html, layout, pageHeaders } from '../auth/html.js';
import { OAuthError } from '../auth/oauth-error.js';
import { clientAddress, userAgent } from '../auth/request.js';
import { authUrl } from '../auth/settings.js';
import { randomBase62 } from '../clock.js';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import type { Reply } from '../http/reply.js';
import { audit } from '../operations/auth.js';
import { issueAuthorizationCode } from '../operations/auth-code.js';
import { approveDevice } from '../operations/auth-device.js';
import { type IdpProfile, mapProfile, provisionFromIdp, type Refusal } from '../operations/sso-provision.js';
import type { StoredSso } from '../store/sso.js';
import type { SsoContinuation, SsoRequest } from '../store/sso-sign-in.js';

/** How long a sign-in sent to an identity provider may take to come back (docs/sso.md: 10 minutes). */
export const SSO_REQUEST_TTL_MS = 10 * 60_000;

/**
 * Records a sign-in about to be sent to the organization's identity provider, and what it continues: its id is the
 * SAML AuthnRequest's ID (an XML NCName, so it starts with `_`) or the OIDC `state`; OIDC also keeps a PKCE verifier
 * and a nonce, sealed at rest.
 */
export async function newSsoRequest(
  ctx: BaseCtx,
  config: StoredSso,
  continuation: SsoContinuation,
): Promise<SsoRequest> {
  const now = ctx.clock().getTime();
  const request: SsoRequest = {
    id: `_${randomBase62(32)}`,
    orgId: config.organizationId,
    protocol: config.protocol,
    continuation,
    secret:
      config.protocol === 'oidc'
        ? { codeVerifier: randomBytes(32).toString('base64url'), nonce: randomBytes(24).toString('base64url') }
        : null,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + SSO_REQUEST_TTL_MS).toISOString(),
  };
  await ctx.tx(async (ctx) => {
    await ctx.stores.ssoSignIn.purge(new Date(now).toISOString());
    await ctx.stores.ssoSignIn.insertRequest(request);
  });
  return request;
}

/** A failed sign-in through the identity provider: what the page and the `sso.failed` event say. */
export interface SsoFailure extends Refusal {
  orgId: string;
  protocol: StoredSso['protocol'];
  /** The sign-in it ended, when it is known (its continuation gets `access_denied`). */
  request?: SsoRequest;
}

function page(c: PageCall, status: number, body: Html, formTargets: string[] = []): Reply {
  return c.html(body.value, status as 200, pageHeaders(formTargets));
}

/** Back to the OAuth client with `params`, `state` echoed and `iss` (RFC 9207), as the authorization endpoint does. */
function toClient(ctx: BaseCtx, redirectUri: string, state: string | undefined, params: Record<string, string>) {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.append(k, v);
  if (state !== undefined) url.searchParams.append('state', state);
  url.searchParams.append('iss', authUrl(ctx));
  return url.href;
}

/**
 * The page of a failed sign-in (docs/sso.md): status 400 (a bad response) or 403 (a refused person), the check that
 * failed and the request id, and — when the OAuth request that started it is known — a link that sends its client
 * `error=access_denied`, so that the waiting CLI stops. Records `sso.failed` with the reason (never the identity
 * provider's answer). Creates nothing else.
 */
export async function ssoFailure(ctx: BaseCtx, c: PageCall, f: SsoFailure): Promise<Reply> {
  await ctx.tx(async (ctx) => {
    // For a sign-in this platform sent, or where single sign-on is configured: anyone can send an answer to any
    // organization's address, and that must not fill its audit log.
    if (f.request !== undefined || (await ctx.stores.sso.get(f.orgId))) {
      await audit(
        ctx,
        f.orgId,
        { type: 'system', id: `sso:${f.protocol}` },
        'sso.failed',
        { type: 'organization', id: f.orgId },
        { protocol: f.protocol, status: f.status, reason: f.check },
      );
    }
  });
  const k = f.request?.continuation;
  if (k?.kind === 'test') {
    await ctx.stores.ssoSignIn.completeTest(k.testId, 'failed', { status: f.status, check: f.check });
  }
  const back =
    k?.kind === 'authorize'
      ? toClient(ctx, k.redirectUri, k.state, { error: 'access_denied', error_description: f.check })
      : undefined;
  const body = layout(
    'Single sign-on failed',
    html`<p role="alert" id="message">Signing in through your organization's identity provider failed: ${f.check}.</p>
<p class="note">Request ${ctx.requestId}. Nobody was signed in and nothing was changed.</p>
${back ? html`<p><a id="back" href="${back}">Return to the application</a></p>` : undefined}`,
  );
  return page(c, f.status, body, back ? [new URL(back).origin] : []);
}

/**
 * Ends a sign-in the identity provider vouched for (the protocol module checked its answer): the person is provisioned
 * or linked (`provisionFromIdp`), then what started the sign-in goes on — the OAuth client gets its authorization
 * code (a session with `method` saml/oidc is opened when it is redeemed), a device is approved, or a test shows
 * what arrived. An IdP-initiated SAML sign-in (no request) provisions the person and says how to use plat.
 */
export async function finishSsoSignIn(
  ctx: BaseCtx,
  c: PageCall,
  r: { config: StoredSso; request: SsoRequest | undefined; profile: IdpProfile; method: SignInMethod },
): Promise<Reply> {
  const { config, request, profile, method } = r;
  const k = request?.continuation;
  const orgId = config.organizationId;
  const fail = (refusal: Refusal) => ssoFailure(ctx, c, { ...refusal, orgId, protocol: config.protocol, request });
  if (k?.kind === 'test') return testResult(ctx, c, config, profile, k.testId);
  // What the sign-in continues must still be there before anyone is provisioned for it.
  const device = k?.kind === 'device' ? await ctx.stores.auth.pendingDeviceCode(k.userCode, ctx.now()) : undefined;
  if (k?.kind === 'device' && !device) return fail({ status: 400, check: 'the device code is no longer pending' });
  const provisioned = await ctx.tx((ctx) => provisionFromIdp(ctx, config, profile));
  if ('refused' in provisioned) return fail(provisioned.refused);
  const { userId } = provisioned;
  if (k === undefined) {
    return page(
      c,
      200,
      layout(
        'Signed in',
        html`<p role="status" id="message">Your organization's identity provider vouched for you, and you can use
plat. To sign in from a terminal, run: plat login --email ${mapProfile(config, profile).email ?? 'you@your-domain'}</p>`,
      ),
    );
  }
  const ipAddress = k.ipAddress ?? clientAddress(c);
  const agent = k.userAgent ?? userAgent(c);
  if (k.kind === 'device') {
    if (!device) return fail({ status: 400, check: 'the device code is no longer pending' });
    try {
      await approveDevice(ctx, device, { userId, orgId, ipAddress, userAgent: agent }, method);
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      return fail({ status: 403, check: err.message });
    }
    return page(
      c,
      200,
      layout(
        'Device connected',
        html`<p role="status" id="message">You can close this window and
return to your terminal.</p>`,
      ),
    );
  }
  try {
    const code = await issueAuthorizationCode(ctx, {
      clientId: k.clientId,
      redirectUri: k.redirectUri,
      codeChallenge: k.codeChallenge,
      requested: k.scopes,
      userId,
      orgId,
      ipAddress,
      userAgent: agent,
      method,
    });
    return c.body(null, 303, {
      Location: toClient(ctx, k.redirectUri, k.state, { code }),
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
    });
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return fail({ status: 403, check: err.message });
  }
}

/** `plat sso test`: what the identity provider sent and what the mapping makes of it; nobody is signed in. */
async function testResult(
  ctx: BaseCtx,
  c: PageCall,
  config: StoredSso,
  profile: IdpProfile,
  testId: string,
): Promise<Reply> {
  const mapped = mapProfile(config, profile);
  const result = { subject: profile.subject, mapped, attributes: profile.attributes };
  await ctx.stores.ssoSignIn.completeTest(testId, 'succeeded', result);
  return page(
    c,
    200,
    layout(
      'Single sign-on works',
      html`<p role="status" id="message">The identity provider signed you in. Nothing was created.</p>
<pre id="profile">${JSON.stringify(result, null, 2)}</pre>
<p class="note">Request ${ctx.requestId}.</p>`,
    ),
  );
}
