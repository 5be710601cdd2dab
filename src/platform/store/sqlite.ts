import { createRequire } from 'node:module';
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
  let file: string;
  try {
    file = createRequire(import.meta.url).resolve(ADDON);
  } catch {
    throw new Error(
      `SQLite's native addon (${ADDON}) is missing: reinstall plat, or run \`npm rebuild better-sqlite3\``,
    );
  }
  const module = { exports: {} };
  process.dlopen(module, file);
  addon = module.exports;
  return addon;
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
