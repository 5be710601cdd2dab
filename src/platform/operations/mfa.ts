import type { MfaFactor, TotpEnroll, TotpEnrollment, TotpVerified } from '../../contract/mfa.js';
import { hasSecondFactor, newRecoveryCodes, recordForAccount } from '../auth/second-factor.js';
import { factorKeys, lockedFor, recordFailure } from '../auth/throttle.js';
import { newTotpSecret, otpauthUri, totpStep } from '../auth/totp.js';
import type { BaseCtx, Ctx } from '../context.js';
import { conflict, invalidField, notFound, PlatformError } from '../errors.js';
import type { StoredFactor } from '../store/mfa.js';
import { guardSessions } from './sessions.js';
import { loadUser } from './users.js';

/** A factor as the API shows it: never its secret. */
function toFactor(f: StoredFactor, remaining?: number): MfaFactor {
  return {
    id: f.id,
    type: f.type,
    name: f.name,
    createdAt: f.createdAt,
    lastUsedAt: f.lastUsedAt,
    ...(f.type === 'recovery_codes' ? { remaining: remaining ?? 0 } : {}),
  };
}

/** The account's confirmed factors as the API shows them, oldest first. */
export async function factorsOf(ctx: BaseCtx, userId: string): Promise<MfaFactor[]> {
  const factors = await ctx.stores.mfa.list(userId);
  const left = await ctx.stores.mfa.recoveryCodesLeft(
    factors.filter((f) => f.type === 'recovery_codes').map((f) => f.id),
  );
  return factors.map((f) => toFactor(f, left.get(f.id)));
}

/** `GET /users/{userId}/mfa`: one's own factors, or (sessions:read) a member's. */
export async function listFactors(ctx: Ctx, userId: string): Promise<{ data: MfaFactor[] }> {
  const user = await loadUser(ctx, userId);
  guardSessions(ctx, user, 'sessions:read');
  return { data: await factorsOf(ctx, userId) };
}

/**
 * `DELETE /users/{userId}/mfa/{factorId}`: removes one's own factor, or resets a member's (sessions:write; an owner's
 * by owners only). The recovery codes go with the last other factor.
 */
export async function removeFactor(ctx: Ctx, userId: string, factorId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const user = await loadUser(ctx, userId);
    guardSessions(ctx, user, 'sessions:write', "reset an owner's second factors");
    const factor = await ctx.stores.mfa.get(userId, factorId);
    if (!factor?.confirmed || !(await ctx.stores.mfa.remove(userId, factorId))) throw notFound('factor');
    const codesToo = factor.type !== 'recovery_codes' && !(await hasSecondFactor(ctx, userId));
    if (codesToo) await ctx.stores.mfa.removeRecoveryCodes(userId);
    await recordForAccount(ctx, userId, { type: 'user', id: ctx.principal.userId }, 'mfa.removed', {
      factorId,
      factor: factor.type,
      reset: userId !== ctx.principal.userId,
      recoveryCodesRemoved: codesToo,
    });
  });
}

/** What authenticator apps show as the account's issuer: plat and the instance's host (no colon: RFC 6238 URIs). */
function issuer(ctx: BaseCtx): string {
  return `plat (${new URL(ctx.publicUrl).hostname})`;
}

/** `POST /auth/mfa/totp`: a new authenticator-app factor, unverified until its first code (a user's token: `access`). */
export async function enrollTotp(ctx: Ctx, body: TotpEnroll): Promise<TotpEnrollment> {
  const userId = ctx.principal.userId;
  const account = await ctx.stores.users.accountById(userId);
  if (!account) throw notFound('user');
  const secret = await newTotpSecret();
  const factorId = ctx.ids('mfaFactor');
  const name = body.name ?? 'Authenticator app';
  await ctx.tx((ctx) => ctx.stores.mfa.insertTotp({ id: factorId, accountId: userId, name, secret, now: ctx.now() }));
  return { factorId, secret, otpauthUri: await otpauthUri(secret, issuer(ctx), account.email) };
}

/**
 * Confirms a new authenticator-app factor: the code shows both sides share the secret and clock. Wrong codes count
 * toward the user's limit (5 in 15 minutes). An account without recovery codes gets them now, shown this once.
 */
export async function confirmTotp(ctx: BaseCtx, userId: string, factorId: string, code: string): Promise<TotpVerified> {
  const factor = await ctx.stores.mfa.get(userId, factorId);
  if (factor?.type !== 'totp') throw notFound('factor');
  if (factor.confirmed) throw conflict('this authenticator app is already verified');
  const retryAfter = await lockedFor(ctx, factorKeys(userId));
  if (retryAfter > 0) {
    throw new PlatformError('rate_limit_exceeded', `too many wrong codes: try again in ${retryAfter} seconds`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  const secret = await ctx.stores.mfa.totpSecret(factorId);
  const step = secret === undefined ? null : await totpStep(secret, code, ctx.clock().getTime());
  if (step === null) {
    await recordFailure(ctx, factorKeys(userId));
    await ctx.tx((ctx) =>
      recordForAccount(ctx, userId, { type: 'user', id: userId }, 'mfa.failed', { factor: 'totp', factorId }),
    );
    throw invalidField('code', 'the code is not the one the app shows now: check it, and the clock of the device');
  }
  return ctx.tx(async (ctx) => {
    if (!(await ctx.stores.mfa.acceptTotpStep(factorId, step, ctx.now()))) {
      throw invalidField('code', 'this code was used already: wait for the next one');
    }
    const hasCodes = (await ctx.stores.mfa.list(userId)).some((f) => f.type === 'recovery_codes');
    const recoveryCodes = hasCodes ? null : await newRecoveryCodes(ctx, userId);
    await recordForAccount(ctx, userId, { type: 'user', id: userId }, 'mfa.enrolled', {
      factorId,
      factor: 'totp',
      name: factor.name,
    });
    const confirmed = (await ctx.stores.mfa.get(userId, factorId)) as StoredFactor;
    return { factor: toFactor(confirmed), recoveryCodes };
  });
}

/** `POST /auth/mfa/totp/{factorId}/verify`: `confirmTotp` for the caller's own factor. */
export async function verifyTotp(ctx: Ctx, factorId: string, code: string): Promise<TotpVerified> {
  return confirmTotp(ctx, ctx.principal.userId, factorId, code);
}
