import { renderSVG } from 'uqr';
import type { Amr } from '../../contract/mfa.js';
import type { BaseCtx } from '../context.js';
import { PlatformError } from '../errors.js';
import type { PageCall } from '../http/page.js';
import { confirmTotp } from '../operations/mfa.js';
import { passwordRefusal } from '../sso/routing.js';
import type { TicketState } from '../store/auth.js';
import { withFactor } from './amr.js';
import type { Html } from './html.js';
import { enrollPage, factorPage, type Hidden, recoveryCodesPage } from './pages.js';
import { checkFormPassword, type FormRefusal } from './password-form.js';
import type { Params } from './request.js';
import { checkFactorCode, hasSecondFactor } from './second-factor.js';
import { INVALID_CREDENTIALS, issueLoginTicket, redeemLoginTicket } from './sign-in.js';
import { newTotpSecret, otpauthUri } from './totp.js';

/** Where a sign-in page's forms post and what they carry beside the step's own fields. */
export interface StepForm {
  action: string;
  csrf: string;
  /** The request's fields (the authorization request's parameters; the device's code). */
  hidden: Hidden;
}

/** Who signed in, with what (RFC 8176), and the organization a step already settled, if any. */
export interface SignedIn {
  userId: string;
  amr: Amr[];
  orgId: string | null;
}

/** A page of a step to show: the second factor, enrolment, the recovery codes. */
export interface StepPage {
  status: number;
  body: Html;
  headers?: Record<string, string>;
}

/** What a post of a sign-in page came to: signed in, refused (the page's own form again), or a step to show. */
export type StepOutcome = { signedIn: SignedIn } | { refusal: FormRefusal } | { step: StepPage };

/** The message and header of a step refused while its failures are spent: `what` failed too often. */
function lockedOut(retryAfter: number, what = 'wrong codes'): { error: string; headers: Record<string, string> } {
  const wait = `${retryAfter} second${retryAfter === 1 ? '' : 's'}`;
  return { error: `Too many ${what}. Try again in ${wait}.`, headers: { 'Retry-After': String(retryAfter) } };
}

/** The second-factor step, with a fresh ticket for it. */
async function showFactor(
  ctx: BaseCtx,
  state: TicketState,
  form: StepForm,
  status = 200,
  error?: string,
): Promise<StepPage> {
  const ticket = await issueLoginTicket(ctx, { ...state, stage: 'factor' });
  return { status, body: factorPage({ ...form, ticket, error }) };
}

/**
 * The sign-in both pages (authorization and device approval) share, one post at a time (docs/mfa.md): the e-mail and
 * password, or the ticket of a later step — the second factor of a person who has one, enrolment when their
 * organization requires one they lack (`requireFactor`), the organization picker. A ticket passes only the step it was
 * issued for. `org` is the organization the request asks for (single sign-on's routing); `missing` is the page's own
 * prompt for an empty field.
 */
export async function signInStep(
  ctx: BaseCtx,
  c: PageCall,
  params: Params,
  email: string,
  org: string | null | undefined,
  missing: string,
  form: StepForm,
): Promise<StepOutcome> {
  const ticket = params.get('ticket');
  if (ticket !== undefined) {
    const state = await redeemLoginTicket(ctx, ticket);
    if (!state) return { refusal: { status: 400, error: 'This step has expired. Please sign in again.' } };
    if (state.stage === 'signed_in') return { signedIn: state };
    if (state.stage === 'factor') return factorPosted(ctx, params, state, form);
    return enrollPosted(ctx, params, state, form);
  }
  const password = params.get('password') ?? '';
  if (!email || !password) return { refusal: { status: 400, error: missing } };
  // Checked before the password: a member of a single sign-on domain signs in through the identity provider.
  const refusal = await passwordRefusal(ctx, email, org);
  if (refusal) return { refusal: { status: 403, error: refusal } };
  const result = await checkFormPassword(ctx, c, email, password);
  if (!result.ok) {
    if (result.reason === 'locked')
      return { refusal: { status: 429, ...lockedOut(result.retryAfter, 'failed sign-ins') } };
    return { refusal: { status: 401, error: INVALID_CREDENTIALS } };
  }
  const signedIn: SignedIn = { userId: result.userId, amr: ['pwd'], orgId: null };
  if (await hasSecondFactor(ctx, signedIn.userId)) {
    return { step: await showFactor(ctx, { ...signedIn, stage: 'factor' }, form) };
  }
  return { signedIn };
}

/** A code posted at the second-factor step: on, or the step again (its own ticket) saying why. */
async function factorPosted(ctx: BaseCtx, params: Params, state: TicketState, form: StepForm): Promise<StepOutcome> {
  const check = await checkFactorCode(ctx, state.userId, params.get('code') ?? '');
  if (check.ok)
    return { signedIn: { userId: state.userId, amr: withFactor(state.amr, check.amr), orgId: state.orgId } };
  if (check.reason === 'locked') {
    const { error, headers } = lockedOut(check.retryAfter);
    return { step: { ...(await showFactor(ctx, state, form, 429, error)), headers } };
  }
  return { step: await showFactor(ctx, state, form, 401, 'That code is not right. Try the code the app shows now.') };
}

/** The enrolment step for a new (unconfirmed) authenticator-app factor, with a fresh ticket for it. */
async function showEnroll(
  ctx: BaseCtx,
  state: TicketState,
  factorId: string,
  form: StepForm,
  status = 200,
  error?: string,
): Promise<StepPage> {
  const secret = await ctx.stores.mfa.totpSecret(factorId);
  const account = await ctx.stores.users.accountById(state.userId);
  const organization = state.orgId ? await ctx.stores.organizations.get(state.orgId) : undefined;
  if (!secret || !account) throw new Error('the factor being enrolled is gone');
  const uri = await otpauthUri(secret, `plat (${new URL(ctx.publicUrl).hostname})`, account.email);
  const ticket = await issueLoginTicket(ctx, { ...state, stage: 'enroll' });
  const qrSvg = renderSVG(uri, { border: 2 }).replace('<svg ', '<svg width="200" height="200" ');
  const body = enrollPage({
    ...form,
    ticket,
    organizationName: organization?.name ?? 'Your organization',
    factorId,
    secret,
    otpauthUri: uri,
    qrSvg,
    error,
  });
  return { status, body };
}

/** A first code posted at enrolment: the factor confirmed (and the recovery codes shown), or the step again. */
async function enrollPosted(ctx: BaseCtx, params: Params, state: TicketState, form: StepForm): Promise<StepOutcome> {
  const factorId = params.get('factor_id') ?? '';
  const factor = await ctx.stores.mfa.get(state.userId, factorId);
  if (factor?.type !== 'totp' || factor.confirmed) {
    return { refusal: { status: 400, error: 'This step has expired. Please sign in again.' } };
  }
  try {
    const { recoveryCodes } = await confirmTotp(ctx, state.userId, factorId, params.get('code') ?? '');
    const signedIn: SignedIn = { userId: state.userId, amr: withFactor(state.amr, ['otp']), orgId: state.orgId };
    if (!recoveryCodes) return { signedIn };
    const ticket = await issueLoginTicket(ctx, { ...signedIn, stage: 'signed_in' });
    return { step: { status: 200, body: recoveryCodesPage({ ...form, ticket, codes: recoveryCodes }) } };
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    if (err.status === 429) {
      const wait = Number(err.headers?.['Retry-After'] ?? 1);
      const { error, headers } = lockedOut(wait);
      return { step: { ...(await showEnroll(ctx, state, factorId, form, 429, error)), headers } };
    }
    return {
      step: await showEnroll(
        ctx,
        state,
        factorId,
        form,
        401,
        'That code is not right. Try the code the app shows now.',
      ),
    };
  }
}

/**
 * After the organization is settled: whether its policy requires a second factor this sign-in lacks (docs/mfa.md) —
 * then the enrolment step, for a new authenticator-app factor; undefined when the sign-in may go on. A person who has
 * a factor was asked for it already; sign-ins through single sign-on are exempt.
 */
export async function requireFactor(
  ctx: BaseCtx,
  signedIn: SignedIn,
  orgId: string,
  form: StepForm,
): Promise<StepPage | undefined> {
  if (signedIn.amr.includes('mfa') || signedIn.amr.includes('sso')) return undefined;
  if ((await ctx.stores.organizations.get(orgId))?.mfa !== 'required') return undefined;
  const factorId = ctx.ids('mfaFactor');
  const secret = await newTotpSecret();
  await ctx.tx((ctx) =>
    ctx.stores.mfa.insertTotp({
      id: factorId,
      accountId: signedIn.userId,
      name: 'Authenticator app',
      secret,
      now: ctx.now(),
    }),
  );
  return showEnroll(ctx, { ...signedIn, stage: 'enroll', orgId }, factorId, form);
}
