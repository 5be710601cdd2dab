import { describe, expect, it } from 'vitest';
import { SQLITE_STAND_IN } from '../../src/cli/sqlite-stand-in.js';
import { openSqlite, withSqliteStandIn } from '../../src/platform/store/sqlite.js';

/** The warm-up of the startup snapshot runs the platform's SQLite side over a stand-in addon (src/cli/warm-up.ts). */
describe("SQLite's stand-in addon", () => {
  it('stands in while its function runs: statements find nothing and nothing is stored', async () => {
    await withSqliteStandIn(SQLITE_STAND_IN, async () => {
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
      withSqliteStandIn(SQLITE_STAND_IN, async () => {
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
