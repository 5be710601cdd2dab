import { randomBytes } from 'node:crypto';
import { type Amr, RECOVERY_CODE_COUNT } from '../../contract/mfa.js';
import type { BaseCtx } from '../context.js';
import { audit } from '../operations/auth.js';
import { hashOpaque } from './secrets.js';
import { activeOrganizations } from './sign-in.js';
import { clearTries, factorKeys, takeTry } from './throttle.js';
import { totpStep } from './totp.js';

/** What checking a second-factor code came to. */
export type CodeCheck =
  | { ok: true; amr: Amr[]; factorId: string; type: 'totp' | 'recovery_codes' }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; retryAfter: number };

/** Whether the account has a factor it signs in with (recovery codes alone do not count: they come with one). */
export async function hasSecondFactor(ctx: BaseCtx, userId: string): Promise<boolean> {
  return (await ctx.stores.mfa.list(userId)).some((f) => f.type !== 'recovery_codes');
}

/**
 * Records an event about an account's factors in each organization where the person is an active member: a factor is
 * the account's, and every organization's admins see what happens to their members' sign-in (an organization that
 * only invited them does not).
 */
export async function recordForAccount(
  ctx: BaseCtx,
  userId: string,
  actor: { type: 'user' | 'system'; id: string },
  type: 'mfa.enrolled' | 'mfa.removed' | 'mfa.failed',
  data: Record<string, unknown>,
): Promise<void> {
  for (const org of await activeOrganizations(ctx, userId)) {
    await audit(ctx, org.id, actor, type, { type: 'user', id: userId }, data);
  }
}

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** A recovery code as typed: lower case, without spaces or hyphens. */
function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/**
 * A new set of recovery codes for the account, replacing any earlier one: `xxxx-xxxx-xxxx` (60 random bits each),
 * shown once, stored hashed. In the caller's transaction.
 */
export async function newRecoveryCodes(ctx: BaseCtx, userId: string): Promise<string[]> {
  const setId = ctx.ids('mfaFactor');
  const codes: string[] = [];
  for (let i = 0; i < RECOVERY_CODE_COUNT; i++) {
    const bytes = randomBytes(12);
    const chars = [...bytes].map((b) => ALPHABET[b & 31]).join('');
    codes.push(`${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`);
  }
  await ctx.stores.mfa.putRecoveryCodes({
    id: setId,
    accountId: userId,
    hashes: codes.map((c) => recoveryCodeHash(setId, c)),
    now: ctx.now(),
  });
  return codes;
}

/** A recovery code's stored form: its hash salted with its set's id, so one guess tests one set, not all of them. */
export function recoveryCodeHash(setId: string, code: string): string {
  return hashOpaque(`${setId}:${normalizeRecoveryCode(code)}`);
}

/**
 * The account's recovery codes if it has none yet (its first factor was just added: in that factor's transaction),
 * shown this once; null when it has a set already.
 */
export async function recoveryCodesIfNone(ctx: BaseCtx, userId: string): Promise<string[] | null> {
  const hasCodes = (await ctx.stores.mfa.list(userId)).some((f) => f.type === 'recovery_codes');
  return hasCodes ? null : newRecoveryCodes(ctx, userId);
}

/**
 * Checks a code typed as a second factor: six digits are tried against the account's authenticator apps (each code
 * once), anything else as a recovery code (each once). Each try is taken from the user's limit before the code is
 * looked at (throttle.ts, `takeTry`; a right code gives it back), so parallel guesses get no more tries than
 * sequential ones; a wrong code is recorded (`mfa.failed`). An empty code is no try.
 */
export async function checkFactorCode(ctx: BaseCtx, userId: string, code: string): Promise<CodeCheck> {
  const typed = code.trim();
  if (typed === '') return { ok: false, reason: 'invalid' };
  const retryAfter = await takeTry(ctx, factorKeys(userId));
  if (retryAfter > 0) return { ok: false, reason: 'locked', retryAfter };
  const nowMs = ctx.clock().getTime();
  if (/^\d{3}\s?\d{3}$/.test(typed)) {
    for (const factor of await ctx.stores.mfa.list(userId)) {
      if (factor.type !== 'totp') continue;
      const secret = await ctx.stores.mfa.totpSecret(factor.id);
      const step = secret === undefined ? null : await totpStep(secret, typed, nowMs);
      if (step !== null && (await ctx.stores.mfa.acceptTotpStep(factor.id, step, ctx.now()))) {
        await clearTries(ctx, factorKeys(userId));
        return { ok: true, amr: ['otp'], factorId: factor.id, type: 'totp' };
      }
    }
  } else if (typed.length <= 64) {
    const setId = await ctx.tx((ctx) =>
      ctx.stores.mfa.useRecoveryCode(userId, (setId) => recoveryCodeHash(setId, typed), ctx.now()),
    );
    if (setId) {
      await clearTries(ctx, factorKeys(userId));
      return { ok: true, amr: ['otp'], factorId: setId, type: 'recovery_codes' };
    }
  }
  await ctx.tx((ctx) => recordForAccount(ctx, userId, { type: 'user', id: userId }, 'mfa.failed', { factor: 'code' }));
  return { ok: false, reason: 'invalid' };
}
