# `plat` is one file, bin/plat.js, read two ways; scripts/bundle.mjs assembles it from this shell text and
# src/startup/entry.js, the shell text inside a JavaScript comment.
#
# As a shell script (after an npm install on a POSIX system, whose postinstall step makes the first line `#!/bin/sh`:
# see src/startup/build-snapshot.js; or run as `sh bin/plat.js …`), it is plat's launcher: it starts Node.js from
# plat's V8 startup snapshot (dist/snapshot/plat.blob), in which the CLI and the embedded platform are already loaded,
# when the snapshot fits the `node` about to run — built by that very binary (same file, same modification time) and
# no NODE_OPTIONS (V8 flags must match the blob's) — and otherwise runs this file with Node.js. PLAT_NO_SNAPSHOT=1
# runs it with Node.js too. When the blob was built by another `node` than the one at hand (Node.js upgraded in place,
# another on the PATH), it says so once on stderr, with the command that builds it again.
#
# As JavaScript (the first line `#!/usr/bin/env node`: in this repository, on Windows, with Yarn or pnpm, after
# `npm install --ignore-scripts`), everything up to the end of this comment is skipped and the CLI starts at once.
#
# This text must never contain the two characters that end a JavaScript comment.

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
if [ -z "$serves" ] && [ -z "$NODE_OPTIONS" ] && [ "$PLAT_NO_SNAPSHOT" != 1 ] && [ -f "$snapshot/plat.blob" ] &&
  [ -f "$snapshot/node" ]; then
  node=$(command -v node)
  read -r built < "$snapshot/node"
  # The stamp carries the modification time of the binary that built the blob: neither newer nor older is the same.
  if [ -n "$node" ] && [ "$node" -ef "$built" ] && ! [ "$node" -nt "$snapshot/node" ] &&
    ! [ "$node" -ot "$snapshot/node" ]; then
    # glibc backs its large allocations with huge pages where the kernel gives them on request (transparent huge
    # pages in "madvise" mode, the usual default): the blob, read whole at each start, then faults in a few times
    # instead of some two thousand. Ours first, so that a setting of the user's own wins; plat takes it back out of
    # its environment at once (src/startup/snapshot.ts), so that nothing it starts inherits it.
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1${GLIBC_TUNABLES:+:$GLIBC_TUNABLES}
    export GLIBC_TUNABLES
    exec "$node" --no-rehash-snapshot --snapshot-blob "$snapshot/plat.blob" "$bin/plat.js" "$@"
  fi
  # Said once per blob: the marker, beside the blob (or in the user's cache when the package may not be written),
  # is newer than the blob until the blob is built again.
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/plat
  if [ -n "$node" ] && ! [ "$snapshot/noticed" -nt "$snapshot/plat.blob" ] &&
    ! [ "$cache/snapshot-noticed" -nt "$snapshot/plat.blob" ]; then
    (: > "$snapshot/noticed") 2> /dev/null || (mkdir -p "$cache" && : > "$cache/snapshot-noticed") 2> /dev/null
    printf 'plat: the startup snapshot does not fit %s (upgraded, or another Node.js), so plat starts without it, slower; build it again with: node "%s/snapshot.js"\n' "$node" "$(cd "$bin" && pwd)" >&2
  fi
fi
exec node "$bin/plat.js" "$@"
