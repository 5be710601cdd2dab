import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { processHome } from '../helpers/spawn.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A copy of the built plat (bin, package.json, the bundle) in a folder with no node_modules above it: where an
 * install that lost better-sqlite3's addon leaves plat. The bundle carries better-sqlite3's JavaScript; its addon is
 * found in the node_modules folders above the bundle, or else by Node's resolution (here, through NODE_PATH).
 */
const copy = mkdtempSync(join(tmpdir(), 'plat-addon-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));
for (const part of ['bin/plat.js', 'package.json', 'dist/bundle'])
  cpSync(join(ROOT, part), join(copy, part), { recursive: true });

function usersList(env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(copy, 'bin/plat.js'), 'users', 'list'], {
    env: { ...processHome('plat-addon-home'), ...env },
    encoding: 'utf8',
  });
}

describe("SQLite's native addon", () => {
  it('missing: the embedded platform says so and how to fix it, without a stack trace', () => {
    const r = usersList();
    expect(r.stderr).toBe(
      "plat: SQLite's native addon (better-sqlite3/build/Release/better_sqlite3.node) is missing: reinstall plat, or run `npm rebuild better-sqlite3`\n",
    );
    expect(r.stdout).toBe('');
    expect(r.status).toBe(1);
  });

  it('not above the bundle: found where Node.js would find it', () => {
    const r = usersList({ NODE_PATH: join(ROOT, 'node_modules') });
    expect(r.stderr).toMatch(/^Created the embedded platform at /);
    expect(r.stdout).toMatch(/^ID\tEMAIL\t.*\nuser_\w+\tadmin@localhost\t/);
    expect(r.status).toBe(0);
  });
});
