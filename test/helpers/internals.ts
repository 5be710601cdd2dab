// The tests' way into a platform's inside (src/platform/internals.ts): the context operations run in, to seed and
// inspect through the stores, and the database. The CLI has no such way (test/architecture/arrows.test.ts).
import type { BaseCtx } from '../../src/platform/context.js';
import { internalsOf } from '../../src/platform/internals.js';
import type { SqlDb } from '../../src/platform/store/sql.js';

/** The platform's context outside a request. */
export function baseOf(platform: object): BaseCtx {
  return internalsOf(platform).base();
}

/** The platform's database. */
export function sqlOf(platform: object): SqlDb {
  return internalsOf(platform).sql;
}
