import { renderSVG } from 'uqr';
import type { Amr } from '../../contract/mfa.js';
import type { BaseCtx } from '../context.js';
import { PlatformError } from '../errors.js';
import type { PageCall } from '../http/page.js';
import { chargeFailedSignIn, signInBudget } from '../limits/sign-in.js';
import { confirmTotp } from '../operations/mfa.js';
import { passwordRefusal } from '../sso/routing.js';
import type { TicketState } from '../store/auth.js';
import { withFactor } from './amr.js';
import type { Html } from './html.js';
import { enrollPage, factorPage, type Hidden, type PasskeyPrompt, recoveryCodesPage } from './pages.js';
import { checkFormPassword, type FormRefusal } from './password-form.js';
import type { Params } from './request.js';
import { checkFactorCode, hasSecondFactor } from './second-factor.js';
import { INVALID_CREDENTIALS, issueLoginTicket, redeemLoginTicket } from './sign-in.js';
import { newTotpSecret, otpauthUri, totpIssuer } from './totp.js';
import {
  authenticationOptions,
  checkPasskey,
  passkeysOffered,
  registerPasskey,
  registrationOptions,
} from './webauthn.js';

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

/**
 * What a post of a sign-in page came to: signed in, refused (the page's own form again), or a step to show. `fresh`:
 * this post proved who the person is (a password, a passkey, the second factor); false when it finished a later step
 * instead (enrolment, the recovery codes, a ticket of a sign-in already done).
 */
export type StepOutcome = { signedIn: SignedIn; fresh: boolean } | { refusal: FormRefusal } | { step: StepPage };

/** What a passkey that signs nobody in is told: the same whatever went wrong. */
const PASSKEY_REFUSED = 'That passkey could not sign you in. Try again, or sign in with your e-mail.';
const EXPIRED: FormRefusal = { status: 400, error: 'This step has expired. Please sign in again.' };
const WRONG_CODE = 'That code is not right. Try the code the app shows now.';

/** The prompt of an assertion for a passkey of the account, or of any (`null`), where the pages offer passkeys. */
export async function passkeySignInPrompt(ctx: BaseCtx, userId: string | null): Promise<PasskeyPrompt | undefined> {
  if (!passkeysOffered(ctx)) return undefined;
  return { ceremony: 'authenticate', options: await authenticationOptions(ctx, userId) };
}

/** The message and header of a step refused while its failures are spent: `what` failed too often. */
function lockedOut(retryAfter: number, what = 'wrong codes'): { error: string; headers: Record<string, string> } {
  const wait = `${retryAfter} second${retryAfter === 1 ? '' : 's'}`;
  return { error: `Too many ${what}. Try again in ${wait}.`, headers: { 'Retry-After': String(retryAfter) } };
}

/** The second-factor step, with a fresh ticket for it: a passkey of the person's, if any, or a code. */
async function showFactor(
  ctx: BaseCtx,
  state: TicketState,
  form: StepForm,
  status = 200,
  error?: string,
): Promise<StepPage> {
  const ticket = await issueLoginTicket(ctx, { ...state, stage: 'factor' });
  const factors = await ctx.stores.mfa.list(state.userId);
  const app = factors.some((f) => f.type === 'totp');
  const passkey = factors.some((f) => f.type === 'webauthn') ? await passkeySignInPrompt(ctx, state.userId) : undefined;
  return { status, body: factorPage({ ...form, ticket, error, app, passkey }) };
}

/**
 * The sign-in the pages (authorization, device approval, the factors page) share, one post at a time (docs/mfa.md):
 * the e-mail and password, or a discoverable passkey (`passkey`: both factors at once), or the ticket of a later step
 * — the second factor of a person who has one, enrolment when their organization requires one they lack
 * (`requireFactor`), the organization picker. A ticket passes only the step it was issued for. `org` is the
 * organization the request asks for (single sign-on's routing); `missing` is the page's own prompt for an empty field.
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
    switch (state?.stage) {
      case 'signed_in':
        return { signedIn: state, fresh: false };
      case 'factor':
        return factorPosted(ctx, params, state, form);
      case 'enroll':
        return enrollPosted(ctx, params, state, form);
      default:
        return { refusal: EXPIRED };
    }
  }
  const passkey = params.get('passkey');
  if (passkey) return passkeySignIn(ctx, c, passkey, org);
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
  return { signedIn, fresh: true };
}

/**
 * A sign-in with a discoverable passkey, without an e-mail or a password (docs/mfa.md): the passkey, verified by its
 * user, stands for both factors, so the second-factor step is skipped. A refusal is charged to the client address's
 * failure budget as a wrong password is (and to the account's wrong codes when the passkey names one: webauthn.ts);
 * a member of a single sign-on domain is sent to it, as with a password.
 */
async function passkeySignIn(
  ctx: BaseCtx,
  c: PageCall,
  posted: string,
  org: string | null | undefined,
): Promise<StepOutcome> {
  const budget = await signInBudget(c);
  if (budget && !budget.allowed) {
    return { refusal: { status: 429, ...lockedOut(Math.max(1, budget.retryAfter ?? 1), 'failed sign-ins') } };
  }
  const check = await checkPasskey(ctx, posted, null);
  if (!check.ok) {
    if (check.reason === 'locked')
      return { refusal: { status: 429, ...lockedOut(check.retryAfter, 'failed sign-ins') } };
    await chargeFailedSignIn(c);
    return { refusal: { status: 401, error: PASSKEY_REFUSED } };
  }
  const account = await ctx.stores.users.accountById(check.userId);
  const refusal = account && (await passwordRefusal(ctx, account.email, org));
  if (refusal) return { refusal: { status: 403, error: refusal } };
  return { signedIn: { userId: check.userId, amr: withFactor([], check.amr), orgId: null }, fresh: true };
}

/** A code or a passkey posted at the second-factor step: on, or the step again (its own ticket) saying why. */
async function factorPosted(ctx: BaseCtx, params: Params, state: TicketState, form: StepForm): Promise<StepOutcome> {
  const passkey = params.get('passkey');
  const check = passkey
    ? await checkPasskey(ctx, passkey, state.userId)
    : await checkFactorCode(ctx, state.userId, params.get('code') ?? '');
  if (check.ok) {
    return {
      signedIn: { userId: state.userId, amr: withFactor(state.amr, check.amr), orgId: state.orgId },
      fresh: true,
    };
  }
  if (check.reason === 'locked') {
    const { error, headers } = lockedOut(check.retryAfter, passkey ? 'failed attempts' : 'wrong codes');
    return { step: { ...(await showFactor(ctx, state, form, 429, error)), headers } };
  }
  const error = passkey ? 'That passkey could not be verified. Try it again, or enter a code.' : WRONG_CODE;
  return { step: await showFactor(ctx, state, form, 401, error) };
}

/**
 * The enrolment step, with a fresh ticket for it: a new passkey (where the pages offer passkeys), or the new
 * (unconfirmed) authenticator-app factor `factorId`. Asked by the organization of the ticket, or (none) by the person.
 */
async function showEnroll(
  ctx: BaseCtx,
  state: TicketState,
  factorId: string,
  form: StepForm,
  status = 200,
  error?: string,
): Promise<StepPage> {
  const secret = await ctx.stores.mfa.totpSecret(factorId);
  // Replaced meanwhile (another enrolment of the account's began): this step begins again, with a new one.
  if (!secret) return startEnrolment(ctx, state, form);
  const account = await ctx.stores.users.accountById(state.userId);
  const organization = state.orgId ? await ctx.stores.organizations.get(state.orgId) : undefined;
  if (!account) throw new Error('the account being signed in is gone');
  const uri = await otpauthUri(secret, totpIssuer(ctx.publicUrl), account.email);
  const ticket = await issueLoginTicket(ctx, { ...state, stage: 'enroll' });
  const qrSvg = renderSVG(uri, { border: 2 }).replace('<svg ', '<svg width="200" height="200" ');
  const passkey: PasskeyPrompt | undefined = passkeysOffered(ctx)
    ? { ceremony: 'register', options: await registrationOptions(ctx, state.userId) }
    : undefined;
  const body = enrollPage({
    ...form,
    ticket,
    organizationName: state.orgId ? (organization?.name ?? 'Your organization') : null,
    factorId,
    secret,
    otpauthUri: uri,
    qrSvg,
    passkey,
    error,
  });
  return { status, body };
}

/** After a factor is enrolled: on (with `amr` added), through the recovery codes when they are new. */
async function enrolled(
  ctx: BaseCtx,
  state: TicketState,
  amr: readonly Amr[],
  recoveryCodes: string[] | null,
  form: StepForm,
): Promise<StepOutcome> {
  const signedIn: SignedIn = { userId: state.userId, amr: withFactor(state.amr, amr), orgId: state.orgId };
  if (!recoveryCodes) return { signedIn, fresh: false };
  const ticket = await issueLoginTicket(ctx, { ...signedIn, stage: 'signed_in' });
  return { step: { status: 200, body: recoveryCodesPage({ ...form, ticket, codes: recoveryCodes }) } };
}

/**
 * A new passkey or a first code posted at enrolment: the factor registered or confirmed (and the recovery codes
 * shown), or the step again. A passkey replaces the authenticator app the step had begun to set up.
 */
async function enrollPosted(ctx: BaseCtx, params: Params, state: TicketState, form: StepForm): Promise<StepOutcome> {
  const factorId = params.get('factor_id') ?? '';
  const factor = await ctx.stores.mfa.get(state.userId, factorId);
  if (factor?.type !== 'totp' || factor.confirmed) return { refusal: EXPIRED };
  const passkey = params.get('passkey');
  if (passkey) {
    const registered = await registerPasskey(ctx, state.userId, passkey);
    if (registered.ok) {
      await ctx.tx((ctx) => ctx.stores.mfa.remove(state.userId, factorId));
      return enrolled(ctx, state, registered.amr, registered.recoveryCodes, form);
    }
    if (registered.reason === 'locked') {
      const { error, headers } = lockedOut(registered.retryAfter, 'failed attempts');
      return { step: { ...(await showEnroll(ctx, state, factorId, form, 429, error)), headers } };
    }
    const error = 'That passkey could not be set up. Try again, or use an authenticator app.';
    return { step: await showEnroll(ctx, state, factorId, form, 401, error) };
  }
  try {
    const { recoveryCodes } = await confirmTotp(ctx, state.userId, factorId, params.get('code') ?? '');
    return enrolled(ctx, state, ['otp'], recoveryCodes, form);
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    if (err.status === 429) {
      const wait = Number(err.headers?.['Retry-After'] ?? 1);
      const { error, headers } = lockedOut(wait);
      return { step: { ...(await showEnroll(ctx, state, factorId, form, 429, error)), headers } };
    }
    return { step: await showEnroll(ctx, state, factorId, form, 401, WRONG_CODE) };
  }
}

/**
 * After the organization is settled: whether its policy requires a second factor this sign-in lacks (docs/mfa.md) —
 * then the enrolment step (a passkey, or a new authenticator-app factor); undefined when the sign-in may go on. A
 * person who has a factor was asked for it already; sign-ins through single sign-on are exempt.
 */
export async function requireFactor(
  ctx: BaseCtx,
  signedIn: SignedIn,
  orgId: string,
  form: StepForm,
): Promise<StepPage | undefined> {
  if (signedIn.amr.includes('mfa') || signedIn.amr.includes('sso')) return undefined;
  if ((await ctx.stores.organizations.get(orgId))?.mfa !== 'required') return undefined;
  return startEnrolment(ctx, { ...signedIn, stage: 'enroll', orgId }, form);
}

/**
 * The factors page's offer, once the person signed in (docs/mfa.md): the enrolment step, asked by nobody but them —
 * a passkey, or an authenticator app.
 */
export async function offerFactor(ctx: BaseCtx, signedIn: SignedIn, form: StepForm): Promise<StepPage> {
  return startEnrolment(ctx, { ...signedIn, stage: 'enroll', orgId: null }, form);
}

/** The enrolment step, with a new unconfirmed authenticator-app factor for the person of `state`. */
async function startEnrolment(ctx: BaseCtx, state: TicketState, form: StepForm): Promise<StepPage> {
  const factorId = ctx.ids('mfaFactor');
  const secret = await newTotpSecret();
  await ctx.tx((ctx) =>
    ctx.stores.mfa.insertTotp({
      id: factorId,
      accountId: state.userId,
      name: 'Authenticator app',
      secret,
      now: ctx.now(),
    }),
  );
  return showEnroll(ctx, state, factorId, form);
}
