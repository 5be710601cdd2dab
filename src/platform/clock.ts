import { randomBytes } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '../contract/ids.js';

/** The platform's notion of now. Injected so tests run on a fixed clock. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** Makes identifiers; injected so tests get predictable ones. */
export type IdFactory = (kind: IdKind) => string;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Reads the CSPRNG `chunk` bytes at a time, handing them out one by one. */
function randomByteSource(chunk: number): () => number {
  let bytes = Buffer.alloc(0);
  let used = 0;
  return () => {
    if (used === bytes.length) {
      bytes = randomBytes(chunk);
      used = 0;
    }
    return bytes[used++] as number;
  };
}

/** `n` base62 characters from `nextByte`, without modulo bias (bytes of 248 and above are skipped). */
function base62(n: number, nextByte: () => number): string {
  let out = '';
  while (out.length < n) {
    const b = nextByte();
    if (b < 248) out += BASE62[b % 62];
  }
  return out;
}

/** `n` base62 characters from the CSPRNG, without modulo bias. */
export function randomBase62(n: number): string {
  return base62(n, randomByteSource(n * 2));
}

/**
 * A factory of `<prefix>_<20 base62 characters>` (119 random bits). It draws the CSPRNG's bytes a page at a time, as
 * Node.js's `randomUUID` does: a call per id costs more than the id itself when a batch makes thousands. The page
 * belongs to the factory, made with its platform, so no process ever starts with another one's bytes.
 */
export function randomIds(): IdFactory {
  const nextByte = randomByteSource(4096);
  return (kind) => `${ID_PREFIX[kind]}_${base62(20, nextByte)}`;
}

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
