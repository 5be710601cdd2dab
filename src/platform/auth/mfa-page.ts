import { apiPath } from '../../contract/endpoint.js';
import { mfaPages } from '../../contract/endpoints/mfa-pages.js';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import { csrfToken, csrfValid } from './csrf.js';
import { type Html, pageHeaders } from './html.js';
import { loginPage, messagePage } from './pages.js';
import { bodyParams } from './request.js';
import { offerFactor, passkeySignInPrompt, type StepForm, type StepPage, signInStep } from './sign-in-steps.js';

// The factors page (docs/mfa.md): where a person adds a passkey or an authenticator app of their own accord. It signs
// them in through the same steps as the other pages (the password, or a passkey; then their second factor if they
// have one), offers the enrolment step, and ends with a page that says so. It hands out no token: a factor is the
// account's, and the next sign-in uses it.

const ACTION = apiPath(mfaPages.mfaPage);
const PURPOSE = 'to add a passkey or an authenticator app to your account';

function page(c: PageCall, status: number, body: Html, extra: Record<string, string> = {}) {
  return c.html(body.value, status as 200, { ...pageHeaders([], body.scripted), ...extra });
}

/** The sign-in form of the page: e-mail and password, or a passkey. */
async function signInForm(ctx: BaseCtx, c: PageCall, error?: string, email?: string): Promise<Html> {
  return loginPage({
    action: ACTION,
    csrf: csrfToken(ctx, c),
    hidden: {},
    clientName: 'plat',
    purpose: PURPOSE,
    step: 'password',
    email,
    error,
    passkey: await passkeySignInPrompt(ctx, null),
  });
}

/** `GET {auth_url}/mfa`: the sign-in form. */
export async function mfaPageGet(ctx: BaseCtx, c: PageCall) {
  return page(c, 200, await signInForm(ctx, c));
}

/**
 * `POST {auth_url}/mfa`: a step of the sign-in, then the enrolment step (a passkey, or an authenticator app), then —
 * the factor added, and its recovery codes shown if it is the account's first — a page that says it is done.
 */
export async function mfaPageSubmit(ctx: BaseCtx, c: PageCall) {
  const params = await bodyParams(c);
  const email = params?.get('email') ?? '';
  const form = async (status: number, error: string, extra: Record<string, string> = {}) =>
    page(c, status, await signInForm(ctx, c, error, email || undefined), extra);
  if (!params || !csrfValid(c, params.get('csrf'))) return form(403, 'This form has expired. Please sign in again.');
  const stepForm: StepForm = { action: ACTION, csrf: csrfToken(ctx, c), hidden: {} };
  const show = (p: StepPage) => page(c, p.status, p.body, p.headers);
  const outcome = await signInStep(ctx, c, params, email, undefined, 'Enter your e-mail and password.', stepForm);
  if ('refusal' in outcome) return form(outcome.refusal.status, outcome.refusal.error, outcome.refusal.headers);
  if ('step' in outcome) return show(outcome.step);
  if (outcome.fresh) return show(await offerFactor(ctx, outcome.signedIn, stepForm));
  return page(
    c,
    200,
    messagePage('Second factor added', 'You will use it the next time you sign in. You can close this window.'),
  );
}
