// What the platform's own listener (server.ts) and the tests reach of a platform besides its public face (index.ts):
// the pipeline's entry, the context operations run in, the database. Never imported outside platform/ by the CLI
// (test/architecture/arrows.test.ts): no store or SQL leaves the platform.
import type { BaseCtx } from './context.js';
import type { Incoming } from './http/incoming.js';
import type { Reply } from './http/reply.js';
import type { SqlDb } from './store/sql.js';

/** A platform's inside. */
export interface PlatformInternals {
  /** Answers a request through the pipeline: what the node:http transport calls. */
  answer(incoming: Incoming): Promise<Reply>;
  /** The context used outside a request (delivery of mail, tests that seed through the stores). */
  base(): BaseCtx;
  /**
   * Throws a `SecretKeyError` that says what to do when the database holds secrets sealed with another key than the
   * one at hand (`plat serve` checks before it listens).
   */
  checkSecretKey(): void;
  /** Ends every open event stream (a listener closing: their connections would hold it open). */
  endStreams(): void;
  readonly sql: SqlDb;
}

const internals = new WeakMap<object, PlatformInternals>();

/** Records a platform's inside (index.ts, when it makes one). */
export function registerInternals(platform: object, inside: PlatformInternals): void {
  internals.set(platform, inside);
}

/** The inside of a platform made by `createPlatform`. */
export function internalsOf(platform: object): PlatformInternals {
  const inside = internals.get(platform);
  if (!inside) throw new Error('not a platform made by createPlatform');
  return inside;
}
