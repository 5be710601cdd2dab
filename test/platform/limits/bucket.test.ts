import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANONYMOUS_LIMIT, AUTH_ENDPOINT_LIMITS, PLAN_LIMITS, type RateRule } from '../../../src/contract/limits.js';
import {
  type Bucket,
  charge,
  claim,
  giveBack,
  levelAt,
  peek,
  take,
  UNIT,
} from '../../../src/platform/limits/bucket.js';
import { IDLE_MS } from '../../../src/platform/limits/store.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const free = PLAN_LIMITS.free;

/** Takes `n` tokens at `now`, returning the last state and the bucket. */
function takeN(b: Bucket | undefined, rule: RateRule, now: number, n: number) {
  let state = peek(b, rule, now);
  for (let i = 0; i < n; i++) {
    const r = take(b, rule, now);
    if (r.next) b = r.next;
    state = r.state;
  }
  return { b, state };
}

describe('token bucket', () => {
  it('starts full, allows the burst back to back, then refuses with a one-second Retry-After on free', () => {
    let b: Bucket | undefined;
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = take(b, free, T0);
      expect(r.state.allowed).toBe(true);
      remaining.push(r.state.remaining);
      b = r.next;
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const refused = take(b, free, T0);
    expect(refused.next).toBeUndefined();
    expect(refused.state).toEqual({ allowed: false, limit: 60, remaining: 0, reset: T0 / 1000 + 10, retryAfter: 1 });
  });

  it('claims with an expired lease given back in the same step exactly as giving back, then claiming', () => {
    const rules = [...Object.values(PLAN_LIMITS), ...Object.values(AUTH_ENDPOINT_LIMITS), ANONYMOUS_LIMIT];
    fc.assert(
      fc.property(
        fc.constantFrom(...rules),
        fc.option(fc.record({ level: fc.integer({ min: 0, max: 1_000 * UNIT }), at: fc.constant(T0) }), {
          nil: undefined,
        }),
        // Another process's clock may lag: time can seem to go back a little.
        fc.integer({ min: -500, max: 5_000 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        (rule, stored, gap, want, back) => {
          const prev = stored && { level: Math.min(stored.level, rule.burst * UNIT), at: stored.at };
          const now = T0 + gap;
          // In two steps: the give-back stored (none for a bucket never stored: it is full), then the claim.
          const given = prev && giveBack(prev, rule, now, back);
          const twoSteps = claim(given, rule, now, want);
          const oneStep = claim(prev, rule, now, want, back);
          expect(oneStep.granted).toBe(twoSteps.granted);
          expect(oneStep.level).toBe(twoSteps.level);
          expect(oneStep.next).toEqual(twoSteps.next);
          // Tokens given back make the bucket hold at least one: such a claim is never refused.
          expect(oneStep.granted).toBeGreaterThanOrEqual(1);
        },
      ),
    );
  });

  it('refills at perMinute / 60 a second and never above the burst', () => {
    const { b } = takeN(undefined, free, T0, 10);
    expect(peek(b, free, T0 + 999).remaining).toBe(0);
    expect(peek(b, free, T0 + 1000).remaining).toBe(1);
    expect(peek(b, free, T0 + 4500).remaining).toBe(4);
    expect(peek(b, free, T0 + 3_600_000).remaining).toBe(10);
    expect(levelAt(b, free, T0 + 3_600_000)).toBe(10 * UNIT);
  });

  it('sets X-RateLimit-Reset to the Unix second the bucket is full again', () => {
    const pro = PLAN_LIMITS.pro;
    const { state } = takeN(undefined, pro, T0 + 250, 3);
    // 3 tokens at 10 a second: full 300 ms later, at T0 + 550 ms, so in the second after T0.
    expect(state.reset).toBe(T0 / 1000 + 1);
    expect(peek(undefined, pro, T0 + 250).reset).toBe(T0 / 1000 + 1);
    expect(peek(undefined, pro, T0).reset).toBe(T0 / 1000);
  });

  it('takes the new rate and capacity on a plan change, keeping at most the new capacity', () => {
    const enterprise = PLAN_LIMITS.enterprise;
    const { b } = takeN(undefined, enterprise, T0, 5); // 995 left
    const down = take(b, free, T0);
    expect(down.state).toMatchObject({ allowed: true, limit: 60, remaining: 9 });
    const { b: low } = takeN(undefined, free, T0, 8); // 2 left on free
    const up = take(low, PLAN_LIMITS.pro, T0 + 1000); // +1 s at pro's 10 a second
    expect(up.state).toMatchObject({ allowed: true, limit: 600, remaining: 11 });
  });

  it('charges failures down to empty, never below', () => {
    let b: Bucket | undefined;
    for (let i = 0; i < 15; i++) b = charge(b, ANONYMOUS_LIMIT, T0).next;
    expect(b).toEqual({ level: 0, at: T0 });
    expect(peek(b, ANONYMOUS_LIMIT, T0)).toMatchObject({ allowed: false, remaining: 0, retryAfter: 2 });
    expect(peek(b, ANONYMOUS_LIMIT, T0 + 2000).allowed).toBe(true);
  });

  it('never refills backwards when another process stored a later time', () => {
    const r = take({ level: 0, at: T0 + 5000 }, free, T0);
    expect(r.state.allowed).toBe(false);
    expect(take({ level: UNIT, at: T0 + 5000 }, free, T0).next).toEqual({ level: 0, at: T0 + 5000 });
  });

  it('tells the truth in Retry-After: a request sent that many seconds later is accepted', () => {
    const rules = [...Object.values(PLAN_LIMITS), ...Object.values(AUTH_ENDPOINT_LIMITS), ANONYMOUS_LIMIT];
    fc.assert(
      fc.property(
        fc.constantFrom(...rules),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 300 }),
        (rule, gaps) => {
          let b: Bucket | undefined;
          let now = T0;
          for (const gap of gaps) {
            now += gap;
            const r = take(b, rule, now);
            if (r.next) b = r.next;
            if (!r.state.allowed) {
              const after = r.state.retryAfter as number;
              expect(after).toBeGreaterThanOrEqual(1);
              expect(take(b, rule, now + after * 1000).state.allowed).toBe(true);
              // …and it is the least whole number of seconds that is enough, give or take the 1 s floor.
              if (after > 1) expect(take(b, rule, now + (after - 1) * 1000).state.allowed).toBe(false);
            }
          }
        },
      ),
    );
  });

  it('prunes only buckets that every rule has refilled by then', () => {
    const rules = [...Object.values(PLAN_LIMITS), ...Object.values(AUTH_ENDPOINT_LIMITS), ANONYMOUS_LIMIT];
    for (const rule of rules) expect(levelAt({ level: 0, at: T0 }, rule, T0 + IDLE_MS)).toBe(rule.burst * UNIT);
  });
});
