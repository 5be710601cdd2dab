import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, type Run, startProcess } from '../helpers/spawn.js';

/**
 * The README's quick start and its two ways of putting plat on the PATH, run as written in a fresh clone of this
 * repository (the files git would check out, as they stand: none of node_modules, dist or bin) under npm's strict
 * install-script policy: a dependency whose install script package.json's `allowScripts` does not approve fails the
 * install, where npm's coming default would skip it and leave plat without SQLite.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The `sh` blocks of a README section, from its heading to the next heading of the same level or a higher one. */
function blocksOf(heading: string): string[] {
  const start = README.indexOf(`\n${heading}\n`);
  const level = heading.indexOf(' ');
  const rest = README.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

/** A block's commands: its lines without comments or blank lines. */
const commands = (block: string) =>
  block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

const work = mkdtempSync(join(tmpdir(), 'plat-quick-start-'));
const clone = join(work, 'plat');
afterAll(() => {
  cleanUpProcesses();
  rmSync(work, { recursive: true, force: true });
});

/**
 * The clone: every file git would check out (tracked, or new and not ignored), copied as it is in this tree, in a git
 * repository of its own (a clone's install leaves bin/plat.js as it is; see src/startup/build-snapshot.js).
 */
function makeClone(): void {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  for (const file of r.stdout.split('\0')) {
    if (file === '' || !existsSync(join(ROOT, file))) continue; // deleted in the tree, not yet committed
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(ROOT, file), join(clone, file));
  }
  expect(spawnSync('git', ['init', '-q'], { cwd: clone }).status).toBe(0);
}

/**
 * npm and plat as a newcomer runs them, from a shell of their own: none of the npm settings, plat variables or PATH
 * entries `npm test` passes down; strict install scripts that no setting can bypass; a global prefix and plat's home in
 * the work folder.
 */
const env: Record<string, string> = {
  ...(Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|PLAT_|VITEST|INIT_CWD$|NODE_OPTIONS$|NODE_ENV$)/i.test(key)),
  ) as Record<string, string>),
  npm_config_strict_allow_scripts: 'true',
  npm_config_dangerously_allow_all_scripts: 'false',
  npm_config_ignore_scripts: 'false',
  npm_config_prefix: join(work, 'prefix'),
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  PLAT_DATA_DIR: join(work, 'data'),
  PLAT_CONFIG_DIR: join(work, 'config'),
  PLAT_CREDENTIAL_STORE: 'file',
  PATH: [
    join(work, 'prefix', 'bin'),
    ...(process.env.PATH ?? '').split(':').filter((p) => !/node_modules|node-gyp-bin/.test(p)),
  ].join(':'),
};

/** Runs a script with `sh -e` in the clone; what it leaves running (npm, node-gyp) ends with it. */
function sh(script: string, timeoutMs: number): Promise<Run> {
  return startProcess('sh', ['-e', '-c', script], env, { cwd: clone, timeoutMs, stopGroupOnExit: true }).done;
}

/**
 * `plat users list` on a fresh embedded platform, by the `plat` the global prefix now has: as the system starts it, or,
 * for a launcher (`#!/bin/sh`), traced by `sh -x` to see how it started Node.js.
 */
async function usersList(traced = false): Promise<Run> {
  rmSync(env.PLAT_DATA_DIR as string, { recursive: true, force: true });
  rmSync(env.PLAT_CONFIG_DIR as string, { recursive: true, force: true });
  const plat = join(work, 'prefix', 'bin', 'plat');
  expect(existsSync(plat), 'the PATH has plat').toBe(true);
  return sh(`${traced ? 'sh -x ' : ''}'${plat}' users list`, 30_000);
}
/** The command the launcher ran from the snapshot, in a traced run's stderr. */
const SNAPSHOT = /^\+ exec \S+ --no-rehash-snapshot --snapshot-blob \S+\/dist\/snapshot\/plat\.blob /m;

describe("the README's quick start, run as written in a fresh clone", () => {
  const [quickStart] = blocksOf('## Quick start');
  const [link, tarball] = blocksOf('### plat on your PATH');

  it('is two commands: one installs and builds everything, one runs plat', () => {
    expect(commands(quickStart as string)).toEqual(['npm install', 'node bin/plat.js users list']);
  });

  it('installs under strict install scripts, lockfile untouched, then runs plat on the embedded default', async () => {
    makeClone();
    const lock = readFileSync(join(clone, 'package-lock.json'), 'utf8');
    const r = await sh(quickStart as string, 600_000);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(
      /^ID\s+EMAIL\s+NAME\s+ROLE\s+STATUS\s+CREATED\nuser_\w+\s+admin@localhost\s+Admin\s+owner\s+active/m,
    );
    expect(r.stderr).toContain('Created the embedded platform');
    expect(r.stderr).not.toContain('install-scripts');
    // Built by the install itself, and nothing in the lockfile rewritten by it.
    expect(existsSync(join(clone, 'bin', 'plat.js'))).toBe(true);
    expect(existsSync(join(clone, 'dist', 'snapshot', 'plat.blob'))).toBe(true);
    expect(readFileSync(join(clone, 'package-lock.json'), 'utf8')).toBe(lock);
  }, 660_000);

  it("npm link puts this clone's plat on the PATH", async () => {
    expect(commands(link as string)).toEqual(['npm link']);
    mkdirSync(join(work, 'prefix', 'lib'), { recursive: true });
    const r = await sh(link as string, 120_000);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    const list = await usersList();
    expect(list, list.stderr).toMatchObject({ code: 0 });
    expect(list.stdout).toMatch(/admin@localhost\s+Admin\s+owner\s+active/);
    // A clone's bin/plat.js stays a Node.js script (the README says the link starts without the snapshot).
    expect(readFileSync(join(clone, 'bin', 'plat.js'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  }, 180_000);

  it('the packed tarball installs globally, allowed scripts only, and starts from its snapshot', async () => {
    rmSync(join(work, 'prefix'), { recursive: true, force: true });
    mkdirSync(join(work, 'prefix', 'lib'), { recursive: true });
    // The addons the line allows are exactly the package's dependencies that package.json allows (esbuild builds
    // plat and is not installed with it), at the versions it pins.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const shipped = Object.keys(pkg.allowScripts).filter((key) => {
      const name = key.slice(0, key.lastIndexOf('@'));
      return name in pkg.dependencies || name in pkg.optionalDependencies;
    });
    expect(tarball).toContain(`--allow-scripts="$T,${shipped.join(',')}"`);
    const r = await sh(tarball as string, 600_000);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    const installed = join(work, 'prefix', 'lib', 'node_modules', 'plat-cli');
    expect(readFileSync(join(installed, 'bin', 'plat.js'), 'utf8').startsWith('#!/bin/sh\n')).toBe(true);
    expect(existsSync(join(installed, 'dist', 'snapshot', 'plat.blob'))).toBe(true);
    const list = await usersList(true);
    expect(list, list.stderr).toMatchObject({ code: 0 });
    expect(list.stdout).toMatch(/admin@localhost\s+Admin\s+owner\s+active/);
    expect(list.stderr).toMatch(SNAPSHOT);
  }, 660_000);
});
