import { describe, expect, it } from 'vitest';
import { openSqlite, withSqliteAddon } from '../../src/platform/store/sqlite.js';
import { SQLITE_STAND_IN } from '../../src/startup/sqlite-stand-in.js';

/** The warm-up of the startup snapshot runs the platform's SQLite side over a stand-in addon (src/startup/warm-up.ts). */
describe("SQLite's stand-in addon", () => {
  it('stands in while its function runs: statements find nothing and nothing is stored', async () => {
    await withSqliteAddon(SQLITE_STAND_IN, async () => {
      const db = openSqlite(':memory:');
      db.exec('CREATE TABLE t (x)');
      db.prepare('INSERT INTO t VALUES (1)').run();
      expect(db.prepare('SELECT x FROM t').get()).toBeUndefined();
      expect(db.transaction(() => db.prepare('SELECT x FROM t').all()).immediate()).toEqual([]);
      db.close();
    });
  });

  it('then the real addon is back, even when the function threw', async () => {
    await expect(
      withSqliteAddon(SQLITE_STAND_IN, async () => {
        throw new Error('failed midway');
      }),
    ).rejects.toThrow('failed midway');
    const db = openSqlite(':memory:');
    db.exec('CREATE TABLE t (x)');
    db.prepare('INSERT INTO t VALUES (1)').run();
    expect(db.prepare('SELECT x FROM t').get()).toEqual({ x: 1 });
    db.close();
  });
});
