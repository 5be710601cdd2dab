#!/usr/bin/env node
// Builds plat's V8 startup snapshot for the Node.js running this script: dist/snapshot/plat.blob from
// dist/snapshot/plat.cjs (made by scripts/bundle.mjs), and dist/snapshot/node, the path of the Node.js binary the
// blob fits (a blob fits only the binary, and the V8 flags, it was built with). bin/plat starts from the blob when it
// fits; otherwise plat starts without it, only slower. Run by `npm run build` (with --strict: a failure fails the
// build) and after `npm install` (postinstall: never fails an install, and does nothing in a checkout not built yet).
import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../dist/snapshot/', import.meta.url));
const strict = process.argv.includes('--strict');

/** Leaves no blob behind (plat then starts without one) and says why; fails only a strict build. */
function without(reason) {
  rmSync(`${dir}plat.blob`, { force: true });
  rmSync(`${dir}node`, { force: true });
  if (reason) process.stderr.write(`plat: no startup snapshot (${reason}); plat will start without it.\n`);
  process.exitCode = strict && reason ? 1 : 0;
}

if (!existsSync(`${dir}plat.cjs`)) {
  without(strict ? 'dist/snapshot/plat.cjs is missing: run scripts/bundle.mjs first' : undefined);
} else {
  // Flags in NODE_OPTIONS would be built into the blob, and a blob runs only with the flags it was built with.
  const { NODE_OPTIONS: _flags, ...env } = process.env;
  const r = spawnSync(
    process.execPath,
    ['--no-warnings', '--snapshot-blob', 'plat.blob.tmp', '--build-snapshot', 'plat.cjs'],
    { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 },
  );
  if (r.status !== 0) {
    rmSync(`${dir}plat.blob.tmp`, { force: true });
    without(`building it failed: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}`);
  } else {
    renameSync(`${dir}plat.blob.tmp`, `${dir}plat.blob`);
    writeFileSync(`${dir}node`, `${process.execPath}\n`);
  }
}
