import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanUpProcesses, processHome, type Run, startPlat, startProcess } from '../helpers/spawn.js';

/**
 * Files and directories plat cannot use, each met by a spawned `plat` (docs/cli.md, "Files and databases"): reported
 * at once, with the path and the reason, exit 1 — never a hang, a stack trace or a missing key.
 */
afterAll(cleanUpProcesses);

const plat = (env: Record<string, string>, argv: string[]) => startPlat(env, argv, { timeoutMs: 20_000 }).done;

/**
 * As an unprivileged user, for file modes to matter (CI runs as root, which ignores them): `runuser -u nobody` when
 * root, the user itself otherwise. Its home is made its own, and traversable.
 */
const asRoot = process.getuid?.() === 0;
function unprivilegedHome(prefix: string): Record<string, string> {
  const env = processHome(prefix);
  chmodSync(env.HOME as string, 0o755);
  if (asRoot) chownSync(env.HOME as string, 65534, 65534);
  return env;
}
function asUser(env: Record<string, string>, argv: string[]): Promise<Run> {
  if (!asRoot) return plat(env, argv);
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const args = ['-u', 'nobody', '--', 'env', ...vars, process.execPath, BIN, ...argv];
  return startProcess('runuser', args, env, { timeoutMs: 20_000 }).done;
}

describe('a data or configuration directory that cannot be created', () => {
  it('is reported at once (no spinning), naming it and why', async () => {
    const env = { ...processHome('plat-nodir'), PLAT_DATA_DIR: '/proc/nope' };
    expect(await plat(env, ['users', 'list'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'plat: cannot create the data directory /proc/nope: no such file or directory (ENOENT)\n',
    });
  });

  it('the configuration directory too, before any platform is made (its key would have nowhere to go)', async () => {
    const env: Record<string, string> = { ...processHome('plat-nodir'), PLAT_CONFIG_DIR: '/proc/nope/plat' };
    expect(await plat(env, ['users', 'list'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'plat: cannot create the configuration directory /proc/nope/plat: no such file or directory (ENOENT)\n',
    });
    expect(existsSync(env.PLAT_DATA_DIR as string)).toBe(false);
  });
});

describe('a database plat cannot read or write', () => {
  it('read-only, unreadable, or in a directory it cannot write in: its path and the reason, exit 1', async () => {
    const env = unprivilegedHome('plat-modes');
    const made = await asUser(env, ['users', 'list', '-o', 'ids']);
    expect(made, made.stderr).toMatchObject({ code: 0 });
    const dir = env.PLAT_DATA_DIR as string;
    const db = join(dir, 'local.db');
    const refused = (reason: string) => ({
      code: 1,
      stdout: '',
      stderr: `plat: cannot use the database ${db}: ${reason}\n`,
    });

    chmodSync(db, 0o400);
    expect(await asUser(env, ['users', 'list'])).toMatchObject(
      refused('it cannot be written: permission denied (EACCES)'),
    );
    chmodSync(db, 0o000);
    expect(await asUser(env, ['users', 'list'])).toMatchObject(
      refused('it cannot be read: permission denied (EACCES)'),
    );
    chmodSync(db, 0o600);
    chmodSync(dir, 0o500);
    const r = await asUser(env, ['users', 'list']);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(
      new RegExp(
        `^plat: cannot use the database ${db}: it cannot be written \\(attempt to write a readonly database; SQLITE_READONLY\\w*\\); SQLite keeps its journal beside the database, and its directory ${dir} cannot be written\n$`,
      ),
    );
    chmodSync(dir, 0o700);
    expect((await asUser(env, ['users', 'list', '-o', 'ids'])).code).toBe(0);
  });
});

describe('a --db that is not a plat database', () => {
  it('garbage, a directory, or another application SQLite database: said so, not "no API key is stored"', async () => {
    const env = processHome('plat-notdb');
    const home = env.HOME as string;
    const garbage = join(home, 'garbage.db');
    writeFileSync(garbage, 'this is not a database, and it is long enough to have a header'.repeat(4));
    expect(await plat(env, ['--db', garbage, 'users', 'list'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        `plat: cannot use the database ${garbage}: it is not a plat database, nor any SQLite database ` +
        '(file is not a database; SQLITE_NOTADB)\n',
    });

    const folder = join(home, 'folder.db');
    mkdirSync(folder);
    expect(await plat(env, ['--db', folder, 'users', 'list'])).toMatchObject({
      code: 1,
      stderr: `plat: cannot use the database ${folder}: it is a directory, not a database file\n`,
    });

    const foreign = join(home, 'foreign.db');
    const other = new Database(foreign);
    other.exec('CREATE TABLE notes (body TEXT)');
    other.close();
    const before = readFileSync(foreign);
    expect(await plat(env, ['--db', foreign, 'users', 'list'])).toMatchObject({
      code: 1,
      stderr: `plat: cannot use the database ${foreign}: it is not a plat database (a SQLite database of another application)\n`,
    });
    expect(readFileSync(foreign).equals(before)).toBe(true);
  });
});

describe('a platform made on first use of --db', () => {
  it('says how to set its owner password on that database, not on the default one', async () => {
    const env = processHome('plat-hint');
    const other = join(env.HOME as string, 'other dir');
    mkdirSync(other);
    const db = join(other, 'dev.db');
    const r = await plat(env, ['--db', db, 'users', 'list', '-o', 'ids']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`choose one with: plat --db '${db}' local init --password-stdin\n`);
    const set = await startPlat(env, ['--db', db, 'local', 'init', '--password-stdin'], {
      input: 'a long enough password 42\n',
    }).done;
    expect(set.stderr).toContain(`The embedded platform at ${db} exists already.`);
    expect(existsSync(join(env.PLAT_DATA_DIR as string, 'local.db'))).toBe(false);
  });
});

describe('a database that fails in the middle of a command', () => {
  it('is told in one line with its cause, never a stack trace', async () => {
    const env = processHome('plat-locked');
    expect((await plat(env, ['local', 'init', '-q'])).code).toBe(0);
    // Another process holds the write lock past the busy timeout: the command reads, then cannot write.
    const holder = new Database(join(env.PLAT_DATA_DIR as string, 'local.db'));
    holder.exec('BEGIN IMMEDIATE');
    try {
      const r = await plat(env, ['projects', 'create', 'Locked']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^plat: internal error \(request req_\w+\): SqliteError: database is locked \(database \/\S+\/local\.db\)\n/,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect((await plat(env, ['projects', 'list', '-o', 'ids'])).stdout).toBe('');
  });
});
