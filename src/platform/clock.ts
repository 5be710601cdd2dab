import { randomBytes } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '../contract/ids.js';

/** The platform's notion of now. Injected so tests run on a fixed clock. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** Makes identifiers; injected so tests get predictable ones. */
export type IdFactory = (kind: IdKind) => string;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `n` base62 characters from the CSPRNG, without modulo bias. */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < 248 && out.length < n) out += BASE62[b % 62];
    }
  }
  return out;
}

/** `<prefix>_<20 base62 characters>`: 119 random bits. */
export const randomIds: IdFactory = (kind) => `${ID_PREFIX[kind]}_${randomBase62(20)}`;

/** Deterministic ids for tests: `user_0001`, `user_0002`, … per kind. */
export function sequentialIds(): IdFactory {
  const counters = new Map<IdKind, number>();
  return (kind) => {
    const n = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, n);
    return `${ID_PREFIX[kind]}_${String(n).padStart(4, '0')}`;
  };
}

/** A clock fixed at `start` that tests can move forward. */
export function fixedClock(
  start = '2026-01-01T00:00:00.000Z',
): Clock & { advance(ms: number): void; set(iso: string): void } {
  let now = Date.parse(start);
  const clock = (() => new Date(now)) as Clock & { advance(ms: number): void; set(iso: string): void };
  clock.advance = (ms) => {
    now += ms;
  };
  clock.set = (iso) => {
    now = Date.parse(iso);
  };
  return clock;
}
