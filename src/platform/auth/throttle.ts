import type { BaseCtx } from '../context.js';

/** How failures against one key slow sign-in down: free tries, then a delay doubling from `baseMs` up to `maxMs`. */
interface Policy {
  free: number;
  baseMs: number;
  maxMs: number;
  /** A quiet period after which the count starts again. */
  windowMs: number;
}

const ACCOUNT: Policy = { free: 5, baseMs: 1000, maxMs: 15 * 60_000, windowMs: 24 * 3600_000 };
const ADDRESS: Policy = { free: 20, baseMs: 1000, maxMs: 15 * 60_000, windowMs: 24 * 3600_000 };

/**
 * Wrong second-factor codes, per user (docs/mfa.md): five, then none for 15 minutes; the count starts again after 15
 * minutes without a failure.
 */
const FACTOR: Policy = { free: 5, baseMs: 15 * 60_000, maxMs: 15 * 60_000, windowMs: 15 * 60_000 };

/** A counter: the account (by the e-mail typed, whether or not it exists) or the client address. */
export interface ThrottleKey {
  key: string;
  policy: Policy;
}

/** The counters a sign-in attempt is charged to. Keyed by the e-mail typed, so unknown e-mails behave the same. */
export function throttleKeys(email: string, address: string | null): ThrottleKey[] {
  const keys = [{ key: `account:${email.trim().toLowerCase()}`, policy: ACCOUNT }];
  if (address) keys.push({ key: `address:${address}`, policy: ADDRESS });
  return keys;
}

/** The counter of wrong user codes typed on the device page, per client address (none in-process). */
export function userCodeKeys(address: string | null): ThrottleKey[] {
  return address ? [{ key: `user-code:${address}`, policy: ADDRESS }] : [];
}

/** The counter of wrong second-factor codes of a user, wherever they are typed (sign-in pages, enrolment by API). */
export function factorKeys(userId: string): ThrottleKey[] {
  return [{ key: `factor:${userId}`, policy: FACTOR }];
}

/** Seconds until a sign-in may be tried again under these counters; 0 when it may now. */
export async function lockedFor(ctx: BaseCtx, keys: readonly ThrottleKey[]): Promise<number> {
  const now = ctx.clock().getTime();
  let until = now;
  for (const { key } of keys) {
    const lockedUntil = (await ctx.stores.auth.loginAttempts(key))?.lockedUntil;
    if (lockedUntil) until = Math.max(until, Date.parse(lockedUntil));
  }
  return Math.ceil((until - now) / 1000);
}

/** Counts a failed sign-in against each counter and locks it for the next delay once past its free tries. */
export async function recordFailure(ctx: BaseCtx, keys: readonly ThrottleKey[]): Promise<void> {
  const now = ctx.clock().getTime();
  await ctx.tx(async (ctx) => {
    for (const { key, policy } of keys) {
      const previous = await ctx.stores.auth.loginAttempts(key);
      const fresh = !previous || now - Date.parse(previous.lastFailureAt) > policy.windowMs;
      const failures = fresh ? 1 : previous.failures + 1;
      const over = failures - policy.free;
      const delay = over < 0 ? 0 : Math.min(policy.baseMs * 2 ** Math.min(over, 30), policy.maxMs);
      await ctx.stores.auth.putLoginAttempts(key, {
        failures,
        lastFailureAt: new Date(now).toISOString(),
        lockedUntil: delay > 0 ? new Date(now + delay).toISOString() : null,
      });
    }
  });
}

/**
 * Takes a try from the counters before the attempt is checked, under the database's write lock: the try counts as a
 * failure at once, and a right one gives it back with `clearTries`. Tries made at the same moment thus cannot all be
 * checked before any is counted (checking first and counting after would let a burst of parallel guesses through).
 * Seconds to wait when the counters are spent (no try taken), else 0.
 */
export async function takeTry(ctx: BaseCtx, keys: readonly ThrottleKey[]): Promise<number> {
  return ctx.tx(async (ctx) => {
    const wait = await lockedFor(ctx, keys);
    if (wait === 0) await recordFailure(ctx, keys);
    return wait;
  });
}

/** Clears the counters after a right answer (the try `takeTry` took, and the failures before it). */
export async function clearTries(ctx: BaseCtx, keys: readonly ThrottleKey[]): Promise<void> {
  for (const { key } of keys) await ctx.stores.auth.clearLoginAttempts(key);
}

/** A successful sign-in clears the account's counter (never the address's: one good account must not reset it). */
export async function recordSuccess(ctx: BaseCtx, keys: readonly ThrottleKey[]): Promise<void> {
  for (const { key } of keys) if (key.startsWith('account:')) await ctx.stores.auth.clearLoginAttempts(key);
}
