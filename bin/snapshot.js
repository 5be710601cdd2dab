#!/usr/bin/env node
// Builds plat's V8 startup snapshot for the Node.js running this script: dist/snapshot/plat.blob from
// dist/snapshot/plat.cjs (made by scripts/bundle.mjs), and dist/snapshot/node, a stamp naming the Node.js binary the
// blob fits and carrying that binary's modification time (a blob fits only the binary, and the V8 flags, it was built
// with). bin/plat.js, read as a shell script, starts from the blob when it fits; otherwise plat starts without it,
// only slower.
//
//   node bin/snapshot.js --strict    `npm run build`: a failure fails the build, and so does one of the Node.js
//                                    modules the snapshot leaves out getting into it (src/cli/warm-up.ts).
//   node bin/snapshot.js --install   postinstall: never fails an install, does nothing in a checkout not built yet,
//                                    and on a POSIX system, once the blob is built, makes bin/plat.js start as the
//                                    launcher (first line `#!/bin/sh`) — except in a git checkout, where that would
//                                    change a tracked file (there, `sh bin/plat.js …` runs the launcher).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = `${root}dist/snapshot/`;
const strict = process.argv.includes('--strict');
const install = process.argv.includes('--install');

/**
 * Node's notice, for each of a few built-in modules, that it is "not yet fully verified" in snapshots: its line and
 * the two that follow it ("It may still work…", "To request support…"), and nothing after them (a failure's reason).
 */
const UNVERIFIED =
  /^\(node:\d+\) Warning: It's not yet fully verified whether built-in module[^\n]*\n(?:(?:It may still work|To request support)[^\n]*\n)*/gm;

/** Leaves no blob behind (plat then starts without one) and says why; fails only a strict build. */
function without(reason) {
  rmSync(`${dir}plat.blob`, { force: true });
  rmSync(`${dir}node`, { force: true });
  if (reason) process.stderr.write(`plat: no startup snapshot (${reason}); plat will start without it.\n`);
  process.exitCode = strict && reason ? 1 : 0;
}

/** The stamp: the binary's path, and its modification time to the nanosecond where `touch -r` can copy it. */
function stamp() {
  writeFileSync(`${dir}node`, `${process.execPath}\n`);
  if (spawnSync('touch', ['-r', process.execPath, `${dir}node`]).status !== 0) {
    const { atime, mtime } = statSync(process.execPath);
    utimesSync(`${dir}node`, atime, mtime);
  }
}

/** Makes bin/plat.js start as the launcher: its first line `#!/bin/sh` instead of `#!/usr/bin/env node`. */
function startAsLauncher() {
  const file = `${root}bin/plat.js`;
  const text = readFileSync(file, 'utf8');
  const node = '#!/usr/bin/env node\n';
  if (!text.startsWith(node)) return;
  writeFileSync(`${file}.tmp`, `#!/bin/sh\n${text.slice(node.length)}`);
  chmodSync(`${file}.tmp`, 0o755); // whatever the umask
  renameSync(`${file}.tmp`, file);
}

if (!existsSync(`${dir}plat.cjs`)) {
  without(strict ? 'dist/snapshot/plat.cjs is missing: run scripts/bundle.mjs first' : undefined);
} else {
  // Flags in NODE_OPTIONS would be built into the blob, and a blob runs only with the flags it was built with: the
  // launcher passes the same --no-rehash-snapshot (see bin/plat.js for why).
  const { NODE_OPTIONS: _flags, ...env } = process.env;
  if (strict) env.PLAT_SNAPSHOT_STRICT = '1';
  const argv = ['--no-rehash-snapshot', '--snapshot-blob', 'plat.blob.tmp', '--build-snapshot', 'plat.cjs'];
  const r = spawnSync(process.execPath, argv, {
    cwd: dir,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 60_000,
  });
  const stderr = (r.stderr ?? '').replace(UNVERIFIED, '').replace(/^\(Use `node --trace-warnings[^\n]*\n/m, '');
  if (r.status !== 0) {
    rmSync(`${dir}plat.blob.tmp`, { force: true });
    without(`building it failed: ${(stderr || r.error?.message || `exit ${r.status}`).trim()}`);
  } else {
    if (stderr.trim()) process.stderr.write(stderr);
    renameSync(`${dir}plat.blob.tmp`, `${dir}plat.blob`);
    stamp();
    if (install && process.platform !== 'win32' && !existsSync(`${root}.git`)) startAsLauncher();
  }
}
