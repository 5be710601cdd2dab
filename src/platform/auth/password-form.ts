import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import { chargeFailedSignIn, signInBudget } from '../limits/sign-in.js';
import { passwordRefusal } from '../sso/routing.js';
import { clientAddress, type Params } from './request.js';
import { checkPassword, INVALID_CREDENTIALS, type PasswordCheck, redeemLoginTicket } from './sign-in.js';

/**
 * `checkPassword` for a page's form: also refused while the rate limiter's failure budget of the client address is
 * spent (checked before the password, so a right guess cannot be told from a wrong one), and a wrong password is
 * charged to that budget — besides the per-account and per-address delays stored with the sign-in state.
 */
export async function checkFormPassword(
  ctx: BaseCtx,
  c: PageCall,
  email: string,
  password: string,
): Promise<PasswordCheck> {
  const budget = await signInBudget(c);
  if (budget && !budget.allowed)
    return { ok: false, reason: 'locked', retryAfter: Math.max(1, budget.retryAfter ?? 1) };
  const result = await checkPassword(ctx, email, password, clientAddress(c));
  if (!result.ok && result.reason === 'invalid') await chargeFailedSignIn(c);
  return result;
}

/** Why a page's sign-in step named no user: the status and message for the page, and any headers. */
export interface FormRefusal {
  status: number;
  error: string;
  headers?: Record<string, string>;
}

/**
 * The sign-in step both sign-in pages (authorization and device approval) share: a ticket from an earlier step (the
 * organization choice), or the form's e-mail and password — refused while locked out, and refused for a person whose
 * single sign-on governs them unless the sign-in asks for another organization (`org`). `missing` is the page's own
 * prompt for an empty field.
 */
export async function formSignIn(
  ctx: BaseCtx,
  c: PageCall,
  params: Params,
  email: string,
  org: string | null | undefined,
  missing: string,
): Promise<{ userId: string } | FormRefusal> {
  const ticket = params.get('ticket');
  if (ticket !== undefined) {
    const userId = await redeemLoginTicket(ctx, ticket);
    return userId ? { userId } : { status: 400, error: 'This step has expired. Please sign in again.' };
  }
  const password = params.get('password') ?? '';
  if (!email || !password) return { status: 400, error: missing };
  // Checked before the password: a member of a single sign-on domain signs in through the identity provider.
  const refusal = await passwordRefusal(ctx, email, org);
  if (refusal) return { status: 403, error: refusal };
  const result = await checkFormPassword(ctx, c, email, password);
  if (result.ok) return { userId: result.userId };
  if (result.reason === 'locked') {
    const wait = `${result.retryAfter} second${result.retryAfter === 1 ? '' : 's'}`;
    return {
      status: 429,
      error: `Too many failed sign-ins. Try again in ${wait}.`,
      headers: { 'Retry-After': String(result.retryAfter) },
    };
  }
  return { status: 401, error: INVALID_CREDENTIALS };
}
