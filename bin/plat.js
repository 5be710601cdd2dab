#!/usr/bin/env node
true /*
# `plat` is this one file, read two ways.
#
# As a shell script (after an npm install on a POSIX system, whose postinstall step makes the first line `#!/bin/sh`;
# see bin/snapshot.js; or run as `sh bin/plat.js …`), it is plat's launcher: it starts Node.js from plat's V8 startup
# snapshot (dist/snapshot/plat.blob), in which the CLI and the embedded platform are already loaded, when the snapshot
# fits the `node` about to run — built by that very binary (same file, same modification time) and no NODE_OPTIONS (V8
# flags must match the blob's) — and otherwise runs this file with Node.js.
#
# As JavaScript (the first line `#!/usr/bin/env node`: in this repository, on Windows, with Yarn or pnpm, after
# `npm install --ignore-scripts`), everything up to the end of this comment is skipped and the CLI starts at once.
#
# The shell part must never contain the two characters that end a JavaScript comment.

# Where plat is installed: follow the symlinks that package managers put on the PATH (40 at most).
self=$0
hops=0
while [ -h "$self" ] && [ $hops -lt 40 ]; do
  link=$(readlink "$self")
  case $link in
    /*) self=$link ;;
    *) case $self in *"/"*) self=${self%/*}/$link ;; *) self=./$link ;; esac ;;
  esac
  hops=$((hops + 1))
done
case $self in *"/"*) bin=${self%/*} ;; *) bin=. ;; esac

# --version is answered from package.json by the shell alone (what plat.js would print), or else by Node.js.
if [ $# -eq 1 ] && { [ "$1" = --version ] || [ "$1" = -V ]; }; then
  version=
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
      *'"version": "'*)
        version=${line#*'"version": "'}
        version=${version%%'"'*}
        break
        ;;
    esac
  done < "$bin/../package.json"
  if [ -n "$version" ]; then
    printf '%s\n' "$version"
    exit 0
  fi
  exec node "$bin/plat.js" "$@"
fi

# From the snapshot, V8 keeps the hash seed the blob was built with instead of rehashing every string and table of
# the heap at each start (--no-rehash-snapshot, ~5 ms). A seed known in advance only matters to a process that hashes
# keys chosen by strangers: `plat serve` (any argument `serve`) always starts the ordinary way, with a fresh seed.
snapshot=$bin/../dist/snapshot
serves=
for arg in "$@"; do [ "$arg" = serve ] && serves=1; done
if [ -z "$serves" ] && [ -z "$NODE_OPTIONS" ] && [ -f "$snapshot/plat.blob" ] && [ -f "$snapshot/node" ]; then
  node=$(command -v node)
  read -r built < "$snapshot/node"
  # The stamp carries the modification time of the binary that built the blob: neither newer nor older is the same.
  if [ -n "$node" ] && [ "$node" -ef "$built" ] && ! [ "$node" -nt "$snapshot/node" ] &&
    ! [ "$node" -ot "$snapshot/node" ]; then
    exec "$node" --no-rehash-snapshot --snapshot-blob "$snapshot/plat.blob" "$bin/plat.js" "$@"
  fi
fi
exec node "$bin/plat.js" "$@"
*/

// The CLI's entry point. `plat --version` answers from package.json without loading the CLI at all; everything else
// runs the bundle.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  // Node ≥ 22 keeps compiled code between runs (most of a cold start is compiling the bundle); Node 20 has no cache.
  const { default: mod } = await import('node:module');
  mod.enableCompileCache?.();
  const { main } = await import('../dist/bundle/main.js');
  main();
}
