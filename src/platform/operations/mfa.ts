import type { MfaFactor, RecoveryCodes, TotpEnroll, TotpEnrollment, TotpVerified } from '../../contract/mfa.js';
import { ORG_ROLE_PERMISSIONS } from '../../contract/permissions.js';
import type { User } from '../../contract/users.js';
import { hasSecondFactor, newRecoveryCodes, recordForAccount, recoveryCodesIfNone } from '../auth/second-factor.js';
import { activeOrganizations } from '../auth/sign-in.js';
import { clearTries, factorKeys, takeTry } from '../auth/throttle.js';
import { newTotpSecret, otpauthUri, totpIssuer, totpStep } from '../auth/totp.js';
import type { BaseCtx, Ctx } from '../context.js';
import { conflict, forbidden, invalidField, notFound, PlatformError } from '../errors.js';
import type { StoredFactor } from '../store/mfa.js';
import { guardOwners } from './sessions.js';
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

/**
 * The user whose factors a call is about: oneself, or an active member of the acting organization (the permission to
 * see or reset another's is the endpoint's, checked before: http/permit.ts) — a factor is the account's, so an
 * organization that only invited someone, or suspended them, sees none of theirs. `ownersOnly` names the change only
 * owners may make to an owner's.
 */
async function factorOwner(ctx: Ctx, userId: string, ownersOnly?: string): Promise<User> {
  const user = await loadUser(ctx, userId);
  if (ownersOnly) guardOwners(ctx, user, ownersOnly);
  if (userId !== ctx.principal.userId && user.status !== 'active') throw notFound('user');
  return user;
}

/**
 * A reset reaches the account in every organization it is an active member of: the caller must be able to reset it in
 * each of them too (an admin there, an owner where the person is an owner), or an organization could strip the factor
 * another one relies on.
 */
async function guardResetEverywhere(ctx: Ctx, userId: string): Promise<void> {
  for (const org of await activeOrganizations(ctx, userId)) {
    if (org.id === ctx.principal.orgId) continue;
    const target = await ctx.stores.users.get(org.id, userId);
    const caller = await ctx.stores.users.get(org.id, ctx.principal.userId);
    const may =
      caller?.status === 'active' &&
      ORG_ROLE_PERMISSIONS[caller.role].includes('sessions:write') &&
      (target?.role !== 'owner' || caller.role === 'owner');
    if (!may) {
      throw forbidden(
        `this user is also a member of organization ${org.id}, where you may not reset their second factors`,
      );
    }
  }
}

/**
 * Changing one's own factors takes one's own sign-in, and, once the account has a factor, a sign-in that used it: an
 * API key, or a session from before the factor (password only), cannot remove or add one.
 */
async function guardOwnChange(ctx: Ctx): Promise<void> {
  const p = ctx.principal;
  if (p.type !== 'user') throw forbidden('changing your own second factors needs your sign-in, not an API key');
  if (!p.amr?.includes('mfa') && (await hasSecondFactor(ctx, p.userId))) {
    throw forbidden('this session was signed in without your second factor: sign in again to change your factors');
  }
}

/** `GET /users/{userId}/mfa`: one's own factors, or (sessions:read) a member's. */
export async function listFactors(ctx: Ctx, userId: string): Promise<{ data: MfaFactor[] }> {
  await factorOwner(ctx, userId);
  return { data: await factorsOf(ctx, userId) };
}

/**
 * `DELETE /users/{userId}/mfa/{factorId}`: removes one's own factor (`guardOwnChange`), or resets a member's
 * (sessions:write; an owner's by owners only; in every organization of theirs, `guardResetEverywhere`). The recovery
 * codes go with the last other factor.
 */
export async function removeFactor(ctx: Ctx, userId: string, factorId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    await factorOwner(ctx, userId, "reset an owner's second factors");
    if (userId === ctx.principal.userId) await guardOwnChange(ctx);
    else await guardResetEverywhere(ctx, userId);
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

/** `POST /auth/mfa/totp`: a new authenticator-app factor, unverified until its first code (a user's token: `access`). */
export async function enrollTotp(ctx: Ctx, body: TotpEnroll): Promise<TotpEnrollment> {
  await guardOwnChange(ctx);
  const userId = ctx.principal.userId;
  const account = await ctx.stores.users.accountById(userId);
  if (!account) throw notFound('user');
  const secret = await newTotpSecret();
  const factorId = ctx.ids('mfaFactor');
  const name = body.name ?? 'Authenticator app';
  await ctx.tx((ctx) => ctx.stores.mfa.insertTotp({ id: factorId, accountId: userId, name, secret, now: ctx.now() }));
  return { factorId, secret, otpauthUri: await otpauthUri(secret, totpIssuer(ctx.publicUrl), account.email) };
}

/**
 * Confirms a new authenticator-app factor: the code shows both sides share the secret and clock. Wrong codes count
 * toward the user's limit (5 in 15 minutes). An account without recovery codes gets them now, shown this once.
 */
export async function confirmTotp(ctx: BaseCtx, userId: string, factorId: string, code: string): Promise<TotpVerified> {
  const factor = await ctx.stores.mfa.get(userId, factorId);
  if (factor?.type !== 'totp') throw notFound('factor');
  if (factor.confirmed) throw conflict('this authenticator app is already verified');
  const retryAfter = await takeTry(ctx, factorKeys(userId));
  if (retryAfter > 0) {
    throw new PlatformError('rate_limit_exceeded', `too many wrong codes: try again in ${retryAfter} seconds`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  const secret = await ctx.stores.mfa.totpSecret(factorId);
  const step = secret === undefined ? null : await totpStep(secret, code, ctx.clock().getTime());
  if (step === null) {
    await ctx.tx((ctx) =>
      recordForAccount(ctx, userId, { type: 'user', id: userId }, 'mfa.failed', { factor: 'totp', factorId }),
    );
    throw invalidField('code', 'the code is not the one the app shows now: check it, and the clock of the device');
  }
  return ctx.tx(async (ctx) => {
    if (!(await ctx.stores.mfa.acceptTotpStep(factorId, step, ctx.now()))) {
      throw invalidField('code', 'this code was used already: wait for the next one');
    }
    await clearTries(ctx, factorKeys(userId));
    const recoveryCodes = await recoveryCodesIfNone(ctx, userId);
    await recordForAccount(ctx, userId, { type: 'user', id: userId }, 'mfa.enrolled', {
      factorId,
      factor: 'totp',
      name: factor.name,
    });
    const confirmed = (await ctx.stores.mfa.get(userId, factorId)) as StoredFactor;
    return { factor: toFactor(confirmed), recoveryCodes };
  });
}

/**
 * `POST /auth/mfa/recovery-codes`: a new set of recovery codes for the caller's account, the old ones void — when
 * they are used up, or may have been seen. Takes a sign-in with the account's factor, as any change of factors does.
 */
export async function regenerateRecoveryCodes(ctx: Ctx): Promise<RecoveryCodes> {
  await guardOwnChange(ctx);
  const userId = ctx.principal.userId;
  return ctx.tx(async (ctx) => {
    if (!(await hasSecondFactor(ctx, userId))) {
      throw conflict('recovery codes come with a second factor: enroll an authenticator app or a passkey first');
    }
    const recoveryCodes = await newRecoveryCodes(ctx, userId);
    await recordForAccount(ctx, userId, { type: 'user', id: userId }, 'mfa.enrolled', {
      factorId: (await ctx.stores.mfa.list(userId)).find((f) => f.type === 'recovery_codes')?.id,
      factor: 'recovery_codes',
      name: 'Recovery codes',
    });
    return { recoveryCodes };
  });
}

/** `POST /auth/mfa/totp/{factorId}/verify`: `confirmTotp` for the caller's own factor. */
export async function verifyTotp(ctx: Ctx, factorId: string, code: string): Promise<TotpVerified> {
  await guardOwnChange(ctx);
  return confirmTotp(ctx, ctx.principal.userId, factorId, code);
}
