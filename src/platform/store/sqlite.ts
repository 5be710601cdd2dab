import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createPrivately } from './files.js';

/** An open better-sqlite3 database. */
export type Db = Database.Database;

/** Where better-sqlite3's install step puts its native addon (built, or downloaded prebuilt). */
const ADDON = 'better-sqlite3/build/Release/better_sqlite3.node';
let addon: object | undefined;

/**
 * better-sqlite3's native addon, loaded once from where its install puts it rather than found by the `bindings`
 * package, which probes a dozen paths on every start (and cannot work from a bundle). It is opened with
 * `process.dlopen` and handed to better-sqlite3 as an object: `require` would add nothing but a module record and
 * its cache. The bundle carries better-sqlite3's JavaScript, so package.json pins the exact version whose addon it
 * loads.
 */
function loadAddon(): object {
  if (addon) return addon;
  const module = { exports: {} };
  process.dlopen(module, findAddon());
  addon = module.exports;
  return addon;
}

/**
 * The addon's path: the first `node_modules/<ADDON>` in the folders above this module, which is what Node's
 * resolution finds (better-sqlite3 declares no `exports` to redirect it). Walked by hand because at a cold start
 * Node's resolver is still to be set up (≈ 1.5 ms); `require.resolve` answers what the walk does not find (NODE_PATH,
 * global folders) and says when nothing has it.
 */
function findAddon(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'node_modules', ADDON);
    if (existsSync(file)) return file;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  try {
    return createRequire(import.meta.url).resolve(ADDON);
  } catch {
    throw new Error(
      `SQLite's native addon (${ADDON}) is missing: reinstall plat, or run \`npm rebuild better-sqlite3\``,
    );
  }
}

/**
 * Runs `fn` with `addon` in place of SQLite's native addon, and puts the real one back however `fn` ends: the
 * platform's SQLite side, run where the real addon cannot be loaded (while a V8 startup snapshot is built).
 */
export async function withSqliteAddon<T>(addonInPlace: object, fn: () => Promise<T>): Promise<T> {
  const before = addon;
  addon = addonInPlace;
  try {
    return await fn();
  } finally {
    addon = before;
  }
}

/**
 * Opens (creating it readable by its owner only) a SQLite file of the platform's. better-sqlite3 sets a busy timeout
 * of 5 s, so that several processes sharing a file wait for each other instead of failing.
 */
export function openSqlite(path: string): Db {
  const nativeBinding = loadAddon();
  createPrivately(path);
  // better-sqlite3 takes the addon object as well as a path (lib/database.js); its type declarations name only a path.
  return new Database(path, { nativeBinding: nativeBinding as unknown as string });
}
