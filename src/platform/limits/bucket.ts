import type { RateLimitInfo, RateRule } from '../../contract/limits.js';

/**
 * One token, in the units a bucket's level is kept in. With 60,000 units a token, a rule of `perMinute` requests
 * refills exactly `perMinute` units a millisecond: every figure stays an integer, so `Retry-After` and
 * `X-RateLimit-Reset` are computed exactly, never a float's hair short.
 */
export const UNIT = 60_000;

/** A bucket's stored state. A bucket never stored (or pruned) is full. */
export interface Bucket {
  /** Tokens × `UNIT` at `at`. */
  level: number;
  /** Unix milliseconds of the last update. */
  at: number;
}

/** A bucket's state after a step, as the response headers say it. */
export interface LimitState extends RateLimitInfo {
  /** False when the request is refused (`429`). */
  allowed: boolean;
}

/** The outcome of one step: what to store (nothing when unchanged) and what to tell the caller. */
export interface StepResult {
  next: Bucket | undefined;
  state: LimitState;
}

/** The level at `now`: refilled at the rule's rate since the last update and capped at the rule's burst. */
export function levelAt(prev: Bucket | undefined, rule: RateRule, now: number): number {
  const capacity = rule.burst * UNIT;
  if (!prev) return capacity;
  // Another process's clock may lag ours by a little: never refill backwards.
  const elapsed = Math.max(0, now - prev.at);
  return Math.min(capacity, prev.level + elapsed * rule.perMinute);
}

/** Headers' view of a level: whole tokens left, the second the bucket is full, and the wait for one token. */
export function stateOf(level: number, rule: RateRule, now: number, allowed: boolean): LimitState {
  const fullInMs = Math.ceil((rule.burst * UNIT - level) / rule.perMinute);
  const state: LimitState = {
    allowed,
    limit: rule.perMinute,
    remaining: Math.floor(level / UNIT),
    reset: Math.ceil((now + fullInMs) / 1000),
  };
  if (!allowed) {
    const tokenInMs = Math.ceil((UNIT - level) / rule.perMinute);
    state.retryAfter = Math.max(1, Math.ceil(tokenInMs / 1000));
  }
  return state;
}

/** Takes one token if there is one; a refused request takes nothing, so waiting `Retry-After` is enough. */
export function take(prev: Bucket | undefined, rule: RateRule, now: number): StepResult {
  const level = levelAt(prev, rule, now);
  const at = Math.max(now, prev?.at ?? now);
  if (level < UNIT) return { next: undefined, state: stateOf(level, rule, now, false) };
  const after = level - UNIT;
  return { next: { level: after, at }, state: stateOf(after, rule, now, true) };
}

/**
 * What a claim of tokens leaves: what to store (nothing when none was granted and none given back), how many, and the
 * level after.
 */
export interface ClaimResult {
  next: Bucket | undefined;
  /** Tokens granted: `want`, or as many whole tokens as the bucket holds when fewer. */
  granted: number;
  /** The level after the claim (units), at `max(now, prev.at)`. */
  level: number;
}

/**
 * Claims up to `want` tokens at once (the leases of limiter.ts): as many as the bucket holds, at most `want`; none
 * from a bucket holding less than one, which is then left as it is. With `back`, the tokens of an expired lease of
 * the same bucket are given back first (`giveBack`), in the same step: stored even when nothing is granted.
 */
export function claim(prev: Bucket | undefined, rule: RateRule, now: number, want: number, back = 0): ClaimResult {
  // A bucket never stored is full: nothing to give back to.
  const given = back > 0 && prev ? giveBack(prev, rule, now, back) : prev;
  const level = levelAt(given, rule, now);
  const granted = Math.min(want, Math.floor(level / UNIT));
  // (Tokens given back are there to claim: with `back` of one or more, a claim is granted at least one.)
  if (granted < 1) return { next: given === prev ? undefined : given, granted: 0, level };
  const after = level - granted * UNIT;
  return { next: { level: after, at: Math.max(now, given?.at ?? now) }, granted, level: after };
}

/** Gives back `n` tokens claimed and not spent, never above the burst. */
export function giveBack(prev: Bucket | undefined, rule: RateRule, now: number, n: number): Bucket {
  const level = Math.min(rule.burst * UNIT, levelAt(prev, rule, now) + n * UNIT);
  return { level, at: Math.max(now, prev?.at ?? now) };
}

/** Charges one token whether or not there is one (a failure already happened), never going below empty. */
export function charge(prev: Bucket | undefined, rule: RateRule, now: number): StepResult {
  const after = Math.max(0, levelAt(prev, rule, now) - UNIT);
  return { next: { level: after, at: Math.max(now, prev?.at ?? now) }, state: stateOf(after, rule, now, true) };
}

/** Reads the bucket without taking: `allowed` says whether a token is there. */
export function peek(prev: Bucket | undefined, rule: RateRule, now: number): LimitState {
  const level = levelAt(prev, rule, now);
  return stateOf(level, rule, now, level >= UNIT);
}

/** Headers of a state: the three `X-RateLimit-*` always, `Retry-After` on a refusal. */
export function limitHeaders(state: RateLimitInfo): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  };
  if (state.retryAfter !== undefined) headers['Retry-After'] = String(state.retryAfter);
  return headers;
}
