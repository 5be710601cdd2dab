import { apiPath } from '../../contract/endpoint.js';
import { oauth } from '../../contract/endpoints/auth.js';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import type { Reply } from '../http/reply.js';
import {
  approveDevice,
  denyDevice,
  findDeviceAuthorization,
  formatUserCode,
  normalizeUserCode,
  startDeviceAuthorization,
} from '../operations/auth-device.js';
import { csrfToken, csrfValid } from './csrf.js';
import { type Html, pageHeaders } from './html.js';
import { NO_STORE, OAuthError, oauthErrorResponse } from './oauth-error.js';
import { devicePage, identityProviderPage, messagePage, organizationPage } from './pages.js';
import { bodyParams, clientAddress, queryParams, userAgent } from './request.js';
import { activeOrganizations, issueLoginTicket } from './sign-in.js';
import { passkeySignInPrompt, requireFactor, type StepForm, type StepPage, signInStep } from './sign-in-steps.js';
import { lockedFor, recordFailure, userCodeKeys } from './throttle.js';

const ACTION = apiPath(oauth.devicePageSubmit);

function page(c: PageCall, status: number, body: Html, extra: Record<string, string> = {}) {
  return c.html(body.value, status as 200, { ...pageHeaders([], body.scripted), ...extra });
}

/** `POST {auth_url}/device/code` (RFC 8628 §3.1–3.2): a device code for the client, a user code for the person. */
export async function deviceCodeEndpoint(ctx: BaseCtx, c: PageCall): Promise<Reply> {
  try {
    const p = await bodyParams(c, { json: true });
    if (!p)
      throw new OAuthError('invalid_request', 'send the parameters form-encoded (application/x-www-form-urlencoded)');
    if (p.repeated) throw new OAuthError('invalid_request', `${p.repeated} is given more than once`);
    const started = await startDeviceAuthorization(ctx, {
      clientId: p.get('client_id'),
      scope: p.get('scope'),
      org: p.get('org'),
    });
    return c.json(started, 200, NO_STORE);
  } catch (err) {
    if (err instanceof OAuthError) return oauthErrorResponse(err);
    throw err;
  }
}

/**
 * `GET {auth_url}/device`: the form, with the code filled in when the link carried it (and a passkey to approve with,
 * where the pages offer passkeys: docs/mfa.md).
 */
export async function devicePageGet(ctx: BaseCtx, c: PageCall) {
  const code = normalizeUserCode(queryParams(c).get('user_code') ?? '');
  const userCode = code ? formatUserCode(code) : '';
  const passkey = await passkeySignInPrompt(ctx, null);
  return page(c, 200, devicePage({ action: ACTION, csrf: csrfToken(ctx, c), userCode, passkey }));
}

/**
 * `POST {auth_url}/device`: approve (after signing in — by password or a passkey, or through the identity provider of
 * a single sign-on domain when the password is left empty — and choosing an organization if several) or deny.
 */
export async function devicePageSubmit(ctx: BaseCtx, c: PageCall) {
  const params = await bodyParams(c);
  const typed = params?.get('user_code') ?? '';
  const email = params?.get('email') ?? '';
  const form = async (status: number, error: string, extra: Record<string, string> = {}) => {
    const passkey = await passkeySignInPrompt(ctx, null);
    const body = devicePage({ action: ACTION, csrf: csrfToken(ctx, c), userCode: typed, email, error, passkey });
    return page(c, status, body, extra);
  };
  if (!params || !csrfValid(c, params.get('csrf'))) return form(403, 'This form has expired. Please try again.');
  const address = clientAddress(c);
  const wait = await lockedFor(ctx, userCodeKeys(address));
  if (wait > 0)
    return form(429, `Too many wrong codes. Try again in ${wait} seconds.`, { 'Retry-After': String(wait) });
  const device = await findDeviceAuthorization(ctx, normalizeUserCode(typed));
  if (!device) {
    await recordFailure(ctx, userCodeKeys(address));
    return form(400, 'That code is not valid or has expired. Check the code on your terminal.');
  }
  if (params.get('action') === 'deny') {
    await denyDevice(ctx, device);
    return page(c, 200, messagePage('Request denied', 'The device was not connected. You can close this window.'));
  }

  // An e-mail of a single sign-on domain, without a password or a passkey: its identity provider approves it.
  if (email && !params.get('password') && !params.get('passkey') && params.get('ticket') === undefined) {
    const { ssoForEmail, ssoSignInUrl } = await import('../sso/begin.js');
    const sso = await ssoForEmail(ctx, email, device.requestedOrg);
    if (sso) {
      const continuation = {
        kind: 'device' as const,
        userCode: device.userCode,
        ipAddress: address,
        userAgent: userAgent(c),
      };
      const url = await ssoSignInUrl(ctx, sso, continuation, email);
      return page(c, 200, identityProviderPage(url));
    }
  }
  const hidden = { user_code: formatUserCode(device.userCode), action: 'approve' };
  const stepForm: StepForm = { action: ACTION, csrf: csrfToken(ctx, c), hidden };
  const show = (p: StepPage) => page(c, p.status, p.body, p.headers);
  const prompt = 'Enter your e-mail and password to approve.';
  const outcome = await signInStep(ctx, c, params, email, device.requestedOrg, prompt, stepForm);
  if ('refusal' in outcome) return form(outcome.refusal.status, outcome.refusal.error, outcome.refusal.headers);
  if ('step' in outcome) return show(outcome.step);
  const { signedIn } = outcome;
  const { userId } = signedIn;

  const orgs = await activeOrganizations(ctx, userId);
  const wanted = device.requestedOrg ?? signedIn.orgId ?? params.get('org');
  let orgId: string | undefined;
  if (wanted !== undefined) {
    orgId = orgs.find((o) => o.id === wanted)?.id;
    if (!orgId)
      return page(c, 403, messagePage('Cannot connect', 'You are not an active member of that organization.'));
  } else if (orgs.length === 1) {
    orgId = orgs[0]?.id;
  } else if (orgs.length === 0) {
    return page(c, 403, messagePage('Cannot connect', 'Your account is not active in any organization.', 'alert'));
  } else {
    const next = await issueLoginTicket(ctx, { ...signedIn, stage: 'signed_in' });
    return page(
      c,
      200,
      organizationPage({ action: ACTION, csrf: csrfToken(ctx, c), hidden, ticket: next, organizations: orgs }),
    );
  }
  const enrol = await requireFactor(ctx, signedIn, orgId as string, stepForm);
  if (enrol) return show(enrol);
  try {
    const approval = { userId, orgId: orgId as string, ipAddress: address, userAgent: userAgent(c) };
    await approveDevice(ctx, device, approval, 'device', signedIn.amr);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    const message =
      err.error === 'invalid_scope'
        ? 'You hold none of the permissions the device asked for.'
        : 'That code has expired.';
    return page(c, 400, messagePage('Cannot connect', message, 'alert'));
  }
  return page(c, 200, messagePage('Device connected', 'You can close this window and return to your terminal.'));
}
