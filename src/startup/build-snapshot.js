#!/usr/bin/env node
// bin/snapshot.js (scripts/bundle.mjs copies it there from src/startup/build-snapshot.js): builds plat's V8 startup
// snapshot for the Node.js running this script: dist/snapshot/plat.blob from dist/snapshot/plat.cjs (made by
// scripts/bundle.mjs from src/startup/snapshot.ts), and dist/snapshot/node, a stamp naming the Node.js binary the blob
// fits and carrying that binary's modification time (a blob fits only the binary, and the V8 flags, it was built
// with). bin/plat.js, read as a shell script, starts from the blob when it fits; otherwise plat starts without it,
// only slower.
//
//   node bin/snapshot.js             builds it again (what plat says to run when the blob no longer fits).
//   node bin/snapshot.js --strict    `npm run build`: a failure fails the build.
//   node bin/snapshot.js --install   postinstall: never fails an install (exit status 0, one line on stderr at most),
//                                    does nothing in a checkout not built yet, and on a POSIX system, once the blob
//                                    is built, makes bin/plat.js start as the launcher (first line `#!/bin/sh`) —
//                                    except in a git checkout (there, `sh bin/plat.js …` runs the launcher).
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

/** Says why there is no blob: all of it to a build, its first line to an install. */
function say(reason) {
  const text = install ? reason.trim().split('\n')[0] : reason.trim();
  process.stderr.write(`plat: no startup snapshot (${text}); plat will start without it.\n`);
}

/** Leaves no blob behind (plat then starts without one) and says why; fails only a strict build. */
function without(reason) {
  rmSync(`${dir}plat.blob`, { force: true });
  rmSync(`${dir}node`, { force: true });
  if (reason) say(reason);
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

function build() {
  if (!existsSync(`${dir}plat.cjs`)) {
    without(strict ? 'dist/snapshot/plat.cjs is missing: run scripts/bundle.mjs first' : undefined);
    return;
  }
  // Flags in NODE_OPTIONS would be built into the blob, and a blob runs only with the flags it was built with: the
  // launcher passes the same --no-rehash-snapshot (see src/startup/launcher.sh for why).
  const { NODE_OPTIONS: _flags, ...env } = process.env;
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
    return;
  }
  if (stderr.trim() && !install) process.stderr.write(stderr);
  renameSync(`${dir}plat.blob.tmp`, `${dir}plat.blob`);
  stamp();
  if (install && process.platform !== 'win32' && !existsSync(`${root}.git`)) startAsLauncher();
}

try {
  build();
} catch (err) {
  // An install never fails for want of a snapshot: plat starts without it.
  if (install) {
    say(err instanceof Error ? err.message : String(err));
    process.exitCode = 0;
  } else throw err;
}
