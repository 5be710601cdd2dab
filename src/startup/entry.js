// The JavaScript half of bin/plat.js (scripts/bundle.mjs puts src/startup/launcher.sh before it, in a comment).
// `plat --version` answers from package.json without loading the CLI at all; everything else runs the bundle.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  // Node ≥ 22 keeps compiled code between runs (most of a cold start without the snapshot is compiling the bundle);
  // Node 20 has no such cache.
  const { default: mod } = await import('node:module');
  mod.enableCompileCache?.();
  const { main } = await import('../dist/bundle/main.js');
  main();
}
