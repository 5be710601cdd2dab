import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import { chargeFailedSignIn, signInBudget } from '../limits/sign-in.js';
import { clientAddress } from './request.js';
import { checkPassword, type PasswordCheck } from './sign-in.js';

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
