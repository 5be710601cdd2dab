import type { BaseCtx } from '../context.js';
import { notFound } from '../errors.js';
import type { PageCall } from '../http/page.js';
import type { Reply } from '../http/reply.js';
import type { Refusal } from '../operations/sso-provision.js';
import { isUsable, type StoredSso } from '../store/sso.js';
import type { SsoRequest } from '../store/sso-sign-in.js';
import { spMetadata } from './saml.js';
import type { AssertionFacts } from './saml-assertion.js';
import { verifyResponse } from './saml-verify.js';
import { refuse, SamlRefusal } from './saml-xml.js';
import { finishSsoSignIn, ssoFailure } from './sign-in.js';

const UNREADABLE: Refusal = { status: 400, check: 'the response could not be read' };
const NOT_CONFIGURED: Refusal = {
  status: 403,
  check: 'single sign-on through SAML is not configured for this organization',
};
const DISABLED: Refusal = { status: 403, check: 'single sign-on is disabled for this organization' };

/** `GET /v2/sso/saml/{orgId}/metadata`: the SP metadata of any organization (its IdP is usually set up first). */
export async function samlMetadataEndpoint(ctx: BaseCtx, c: PageCall): Promise<Reply> {
  const orgId = c.req.param('orgId') ?? '';
  if (!(await ctx.stores.organizations.get(orgId))) throw notFound('organization');
  return c.body(spMetadata(ctx, orgId), 200, { 'Content-Type': 'application/samlmetadata+xml' });
}

/** The organization's configuration when it is SAML with an identity provider read from its metadata. */
async function samlConfig(ctx: BaseCtx, orgId: string): Promise<StoredSso | undefined> {
  const config = await ctx.stores.sso.get(orgId);
  return config?.protocol === 'saml' && isUsable(config) && config.idpEntityId ? config : undefined;
}

/** The form the identity provider's page posts: one `SAMLResponse`, and the `RelayState` it was given. */
async function postedForm(c: PageCall): Promise<{ samlResponse: string; relayState: string | null }> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  // The body is already bounded (1 MiB) and in memory (the pipeline read it: http/pipeline.ts); a response with many attributes can be
  // larger than the 64 KiB of a sign-in form.
  const params = type.startsWith('application/x-www-form-urlencoded') ? new URLSearchParams(await c.req.text()) : null;
  const responses = params?.getAll('SAMLResponse') ?? [];
  if (responses.length > 1) refuse('the request carries SAMLResponse more than once');
  const [samlResponse] = responses;
  if (samlResponse === undefined) refuse('the request carries no SAMLResponse form field');
  const relay = params?.getAll('RelayState') ?? [];
  return { samlResponse, relayState: relay.length === 1 ? (relay[0] as string) : null };
}

/** Why a request id could not be redeemed for this organization, in words. */
async function unredeemable(ctx: BaseCtx, id: string, orgId: string): Promise<string> {
  const known = await ctx.stores.ssoSignIn.requestState(id);
  if (!known) return 'InResponseTo names no sign-in request of this platform';
  if (known.orgId !== orgId) return 'InResponseTo names a sign-in request of another organization';
  if (known.usedAt !== null) return 'the sign-in request (InResponseTo) was already used';
  return 'the sign-in request (InResponseTo) is older than 10 minutes';
}

type Redeemed = { request: SsoRequest | undefined } | { refused: Refusal; request?: SsoRequest };

/**
 * The checks that write, in one transaction: the assertion ID is recorded until the assertion expires (seen before: a
 * replay); an unsolicited response is taken only when the configuration allows IdP-initiated sign-in; otherwise
 * InResponseTo is redeemed — a request this platform sent for this organization, unused, at most 10 minutes old,
 * used up now. A disabled configuration still answers `plat sso test`, which signs nobody in.
 */
async function redeem(ctx: BaseCtx, config: StoredSso, assertion: AssertionFacts): Promise<Redeemed> {
  const orgId = config.organizationId;
  return ctx.tx(async (ctx): Promise<Redeemed> => {
    if (!(await ctx.stores.ssoSignIn.recordAssertion(orgId, assertion.id, assertion.keepUntil))) {
      return { refused: { status: 400, check: 'the assertion was already used (replay)' } };
    }
    if (assertion.inResponseTo === null) {
      if (!config.enabled) return { refused: DISABLED };
      if (!config.allowIdpInitiated) {
        return {
          refused: { status: 400, check: 'unsolicited (IdP-initiated) responses are not allowed by this organization' },
        };
      }
      return { request: undefined };
    }
    const request = await ctx.stores.ssoSignIn.redeemRequest(assertion.inResponseTo, orgId, ctx.now());
    if (!request) return { refused: { status: 400, check: await unredeemable(ctx, assertion.inResponseTo, orgId) } };
    if (request.protocol !== 'saml') {
      return {
        refused: { status: 400, check: 'InResponseTo names a sign-in request that was not sent by SAML' },
        request,
      };
    }
    if (!config.enabled && request.continuation.kind !== 'test') return { refused: DISABLED, request };
    return { request };
  });
}

/**
 * The sign-in a refused response was meant to finish, if its `RelayState` (the request's id, echoed by the identity
 * provider) names a pending one of this organization: it is used up, and its client told `access_denied` (as
 * node-saml forgets a request whose response failed). A RelayState is not signed: it only ever ends a sign-in.
 */
async function abandoned(ctx: BaseCtx, orgId: string, relayState: string | null): Promise<SsoRequest | undefined> {
  if (relayState === null || !/^_[A-Za-z0-9]{1,64}$/.test(relayState)) return undefined;
  const request = await ctx.stores.ssoSignIn.redeemRequest(relayState, orgId, ctx.now());
  return request?.protocol === 'saml' ? request : undefined;
}

/**
 * `POST /v2/sso/saml/{orgId}/acs`: the assertion consumer service (HTTP-POST binding). No cookie is read: the
 * identity provider's page posts here cross-site. Every check of docs/sso.md (saml-verify.ts, then `redeem`), then
 * the person signs in (`finishSsoSignIn`). Each refusal is a page naming its check (400, or 403 for a refused person)
 * that creates nothing; forged or garbled input is never a 500.
 */
export async function samlAcs(ctx: BaseCtx, c: PageCall): Promise<Reply> {
  const orgId = c.req.param('orgId') ?? '';
  const fail = (refusal: Refusal, request?: SsoRequest) =>
    ssoFailure(ctx, c, { ...refusal, orgId, protocol: 'saml', request });
  const config = await samlConfig(ctx, orgId);
  if (!config) return fail(NOT_CONFIGURED);
  let relayState: string | null = null;
  let verified: Awaited<ReturnType<typeof verifyResponse>>;
  try {
    const form = await postedForm(c);
    relayState = form.relayState;
    verified = await verifyResponse(ctx, config, form.samlResponse);
  } catch (err) {
    // Whatever else a library throws on a garbled response (a parser's RangeError on absurd nesting) is still the
    // response's fault: a refusal, never a 500, and never its message, which may quote the response.
    const refusal = err instanceof SamlRefusal ? err.refusal : UNREADABLE;
    return fail(refusal, await abandoned(ctx, orgId, relayState));
  }
  const redeemed = await redeem(ctx, config, verified.assertion);
  if ('refused' in redeemed) {
    return fail(redeemed.refused, redeemed.request ?? (await abandoned(ctx, orgId, relayState)));
  }
  return finishSsoSignIn(ctx, c, { config, request: redeemed.request, profile: verified.profile, method: 'saml' });
}
