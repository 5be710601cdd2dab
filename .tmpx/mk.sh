#!/bin/bash
# usage: mk.sh name 'import statements'
name=$1; shift
cat > $name.ts <<EOT
import { startupSnapshot } from 'node:v8';
$1
(globalThis as any).__keep = [$2];
startupSnapshot.setDeserializeMainFunction(() => {});
EOT
npx esbuild $name.ts --bundle --platform=node --target=node20 --format=cjs --minify --external:keytar --external:undici --outfile=/tmp/s2/$name.cjs --log-level=error --define:import.meta.url=globalThis.__u '--banner:js=var __platBuiltins = require; var require = (id) => (globalThis.__platRequire ?? __platBuiltins)(id);' 2>&1 | grep -v nodedir
(cd /tmp/s2 && node --no-rehash-snapshot --snapshot-blob $name.blob --build-snapshot $name.cjs 2>&1 | grep -v -e Warning -e 'It may' -e 'To request' -e trace-warnings; ls -la $name.blob | awk '{print $5}')
