import { apiPath } from '../../contract/endpoint.js';
import { oauth } from '../../contract/endpoints/auth.js';
import { ORG_ID } from '../../contract/oauth.js';
import type { Permission } from '../../contract/permissions.js';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import type { Reply } from '../http/reply.js';
import { issueAuthorizationCode } from '../operations/auth-code.js';
import { csrfToken, csrfValid } from './csrf.js';
import { type Html, pageHeaders } from './html.js';
import { OAuthError } from './oauth-error.js';
import { type Hidden, identityProviderPage, loginPage, messagePage, organizationPage } from './pages.js';
import { isS256Challenge } from './pkce.js';
import { isRegisteredRedirect } from './redirects.js';
import { bodyParams, clientAddress, type Params, queryParams, userAgent } from './request.js';
import { parseScope } from './scopes.js';
import { authUrl, type OAuthClient } from './settings.js';
import { activeOrganizations, issueLoginTicket } from './sign-in.js';
import { passkeySignInPrompt, requireFactor, type StepForm, type StepPage, signInStep } from './sign-in-steps.js';

/** A valid authorization request. */
interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  scopes: Permission[] | null;
  org: string | undefined;
  /** Its parameters, to carry through the forms. */
  hidden: Hidden;
}

/** What an authorization request's parameters amount to. */
type Checked =
  | { ok: AuthorizationRequest }
  | { page: string }
  | { redirect: { redirectUri: string; state: string | undefined; error: OAuthError } };

const PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
];

/** Validates in RFC 6749 §4.1.2.1's order: client and redirect URI first (shown on the page), the rest redirected. */
function check(ctx: BaseCtx, p: Params): Checked {
  const clientId = p.get('client_id');
  const client = clientId ? ctx.auth.clients.get(clientId) : undefined;
  if (!client || p.repeated === 'client_id')
    return { page: 'The application asking you to sign in is not registered.' };
  const redirectUri = p.get('redirect_uri');
  if (!redirectUri || p.repeated === 'redirect_uri' || !isRegisteredRedirect(client, redirectUri)) {
    return { page: 'The application asked to return to an address that is not registered for it.' };
  }
  const state = p.get('state');
  const fail = (error: OAuthError): Checked => ({ redirect: { redirectUri, state, error } });
  if (p.repeated) return fail(new OAuthError('invalid_request', `${p.repeated} is given more than once`));
  const responseType = p.get('response_type');
  if (!responseType) return fail(new OAuthError('invalid_request', 'response_type is required'));
  if (responseType !== 'code') return fail(new OAuthError('unsupported_response_type', 'only response_type=code'));
  const codeChallenge = p.get('code_challenge');
  if (!codeChallenge) return fail(new OAuthError('invalid_request', 'code_challenge is required (PKCE with S256)'));
  if (p.get('code_challenge_method') !== 'S256') {
    return fail(new OAuthError('invalid_request', 'code_challenge_method must be S256'));
  }
  if (!isS256Challenge(codeChallenge)) return fail(new OAuthError('invalid_request', 'malformed code_challenge'));
  if (state !== undefined && state.length > 2048) return fail(new OAuthError('invalid_request', 'state is too long'));
  const scope = parseScope(p.get('scope'));
  if (!scope.ok) return fail(new OAuthError('invalid_scope', `unknown scope: ${scope.unknown.join(' ')}`));
  const org = p.get('org');
  if (org !== undefined && !ORG_ID.test(org)) {
    return fail(new OAuthError('invalid_request', 'org is not an organization identifier'));
  }
  const hidden: Hidden = {};
  for (const name of PARAMS) hidden[name] = p.get(name);
  return { ok: { client, redirectUri, state, codeChallenge, scopes: scope.scopes, org, hidden: { ...hidden, org } } };
}

/**
 * Where the sign-in form may lead: browsers apply CSP `form-action` to the redirect that follows the post, so the
 * client's origin is allowed too. CSP cannot name an IPv6 literal; `http://*:<port>` is the narrowest that admits
 * `http://[::1]:<port>`.
 */
function formTargets(redirectUri: string): string[] {
  const url = new URL(redirectUri);
  return [url.hostname === '[::1]' ? `${url.protocol}//*:${url.port || '80'}` : url.origin];
}

function page(c: PageCall, status: number, body: Html, formTargets: string[] = [], extra: Record<string, string> = {}) {
  return c.html(body.value, status as 200, { ...pageHeaders(formTargets, body.scripted), ...extra });
}

/** Back to the client with `params` added, `state` echoed and `iss` (RFC 9207). */
function toClient(
  ctx: BaseCtx,
  c: PageCall,
  redirectUri: string,
  state: string | undefined,
  params: Record<string, string>,
) {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.append(k, v);
  if (state !== undefined) url.searchParams.append('state', state);
  url.searchParams.append('iss', authUrl(ctx));
  return c.body(null, 303, { Location: url.href, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
}

function answer(ctx: BaseCtx, c: PageCall, checked: Exclude<Checked, { ok: AuthorizationRequest }>) {
  if ('page' in checked) return page(c, 400, messagePage('Cannot sign in', checked.page, 'alert'));
  const { redirectUri, state, error } = checked.redirect;
  return toClient(ctx, c, redirectUri, state, { error: error.error, error_description: error.message });
}

const ACTION = apiPath(oauth.authorizeSubmit);

/** The authorization request's own address with `password=1`: the sign-in page's password step, skipping routing. */
function passwordStepUrl(req: AuthorizationRequest): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(req.hidden)) if (v !== undefined) q.set(k, v);
  q.set('password', '1');
  return `${ACTION}?${q}`;
}

/**
 * Sends the person to the identity provider of the organization their e-mail belongs to (docs/sso.md routing), with
 * the authorization request to continue once it vouched for them; undefined when no enabled single sign-on claims
 * the e-mail's domain.
 */
async function toIdentityProvider(
  ctx: BaseCtx,
  c: PageCall,
  req: AuthorizationRequest,
  email: string,
  afterForm: boolean,
): Promise<Reply | undefined> {
  const { ssoForEmail, ssoSignInUrl } = await import('../sso/begin.js');
  // An authorization request for another organization is not this identity provider's to answer.
  const sso = await ssoForEmail(ctx, email, req.org);
  if (!sso) return undefined;
  const url = await ssoSignInUrl(
    ctx,
    sso,
    {
      kind: 'authorize',
      clientId: req.client.id,
      redirectUri: req.redirectUri,
      state: req.state,
      codeChallenge: req.codeChallenge,
      scopes: req.scopes,
      ipAddress: clientAddress(c),
      userAgent: userAgent(c),
    },
    email,
  );
  // After the e-mail form, a page that moves on (see identityProviderPage); from a link, a plain redirect.
  if (afterForm) return page(c, 200, identityProviderPage(url));
  return c.body(null, 303, { Location: url, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
}

/**
 * `GET {auth_url}/authorize`: checks the request and shows the sign-in form, e-mail first (with a passkey instead,
 * where the pages offer passkeys: docs/mfa.md). A `login_hint` of an e-mail whose domain has single sign-on goes to
 * its identity provider at once, without the form; another one opens the form at the password step.
 */
export async function authorizePage(ctx: BaseCtx, c: PageCall) {
  const params = queryParams(c);
  const checked = check(ctx, params);
  if (!('ok' in checked)) return answer(ctx, c, checked);
  const req = checked.ok;
  const hint = params.get('login_hint')?.trim();
  if (hint && params.get('password') === undefined) {
    const redirected = await toIdentityProvider(ctx, c, req, hint, false);
    if (redirected) return redirected;
  }
  const targets = formTargets(req.redirectUri);
  const csrf = csrfToken(ctx, c);
  const step = hint || params.get('password') === '1' ? 'password' : 'email';
  const body = loginPage({
    action: ACTION,
    csrf,
    hidden: req.hidden,
    clientName: req.client.name,
    step,
    email: hint,
    passwordLink: passwordStepUrl(req),
    passkey: step === 'email' ? await passkeySignInPrompt(ctx, null) : undefined,
  });
  return page(c, 200, body, targets);
}

/**
 * `POST {auth_url}/authorize`: the sign-in form (its e-mail, its password or a passkey), or a later step, posted back.
 * On success, redirects to the client with a code; a wrong password shows the form again with one message whatever
 * the cause.
 */
export async function authorizeSubmit(ctx: BaseCtx, c: PageCall) {
  const params = await bodyParams(c);
  if (!params) return page(c, 400, messagePage('Cannot sign in', 'The form was not sent as a form.', 'alert'));
  const checked = check(ctx, params);
  if (!('ok' in checked)) return answer(ctx, c, checked);
  const req = checked.ok;
  const targets = formTargets(req.redirectUri);
  const form = async (
    status: number,
    error: string | undefined,
    extra: Record<string, string> = {},
    email?: string,
    step: 'email' | 'password' = 'password',
  ) =>
    page(
      c,
      status,
      loginPage({
        action: ACTION,
        csrf: csrfToken(ctx, c),
        hidden: req.hidden,
        clientName: req.client.name,
        step,
        error,
        email,
        passwordLink: passwordStepUrl(req),
        passkey: step === 'email' ? await passkeySignInPrompt(ctx, null) : undefined,
      }),
      targets,
      extra,
    );
  if (!csrfValid(c, params.get('csrf'))) return form(403, 'This form has expired. Please sign in again.');

  const email = params.get('email') ?? '';
  const passkey = Boolean(params.get('passkey'));
  // The e-mail step (no password field): the e-mail's identity provider, or the password step.
  if (params.get('ticket') === undefined && params.get('password') === undefined && !passkey) {
    if (!email) return form(400, 'Enter your e-mail.', {}, undefined, 'email');
    const redirected = await toIdentityProvider(ctx, c, req, email, true);
    if (redirected) return redirected;
    return form(200, undefined, {}, email);
  }
  const stepForm: StepForm = { action: ACTION, csrf: csrfToken(ctx, c), hidden: req.hidden };
  const show = (p: StepPage) => page(c, p.status, p.body, targets, p.headers);
  const outcome = await signInStep(ctx, c, params, email, req.org, 'Enter your e-mail and password.', stepForm);
  if ('refusal' in outcome) {
    const r = outcome.refusal;
    // A refused passkey: the e-mail step again, its passkey with it.
    return form(r.status, r.error, r.headers, email || undefined, passkey ? 'email' : 'password');
  }
  if ('step' in outcome) return show(outcome.step);
  const { signedIn } = outcome;
  const { userId } = signedIn;

  const orgs = await activeOrganizations(ctx, userId);
  const deny = (message: string) =>
    toClient(ctx, c, req.redirectUri, req.state, { error: 'access_denied', error_description: message });
  let orgId = signedIn.orgId ?? req.org;
  if (orgId !== undefined) {
    if (!orgs.some((o) => o.id === orgId))
      return deny('the user is not an active member of the requested organization');
  } else if (orgs.length === 0) {
    return deny('the user is not an active member of any organization');
  } else if (orgs.length === 1) {
    orgId = orgs[0]?.id as string;
  } else {
    const hidden = { ...req.hidden, org: undefined };
    const next = await issueLoginTicket(ctx, { ...signedIn, stage: 'signed_in' });
    const body = organizationPage({
      action: ACTION,
      csrf: csrfToken(ctx, c),
      hidden,
      ticket: next,
      organizations: orgs,
    });
    return page(c, 200, body, targets);
  }
  const enrol = await requireFactor(ctx, signedIn, orgId as string, stepForm);
  if (enrol) return show(enrol);
  try {
    const code = await issueAuthorizationCode(ctx, {
      clientId: req.client.id,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      requested: req.scopes,
      userId,
      orgId,
      ipAddress: clientAddress(c),
      userAgent: userAgent(c),
      amr: signedIn.amr,
    });
    return toClient(ctx, c, req.redirectUri, req.state, { code });
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return toClient(ctx, c, req.redirectUri, req.state, { error: err.error, error_description: err.message });
  }
}
