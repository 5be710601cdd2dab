// Bundles the CLI with esbuild into dist/bundle: one ESM entry plus a chunk per lazily imported module, so that a
// cold start reads a handful of files instead of hundreds (and unused code such as zod's locales is dropped).
// better-sqlite3's JavaScript is bundled too (its addon is a .node file loaded at run time); keytar, undici and
// playwright-core stay external. dist/bundle/meta.json maps every chunk to its sources (the lazy-load test reads it).
import { rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

/** zod re-exports all of its ~40 message locales; plat uses none but the default (English), which zod loads itself. */
const noZodLocales = {
  name: 'no-zod-locales',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/zod/') ? { path: 'zod-locales', namespace: 'plat-stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'plat-stub' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

rmSync('dist/bundle', { recursive: true, force: true });
const result = await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['keytar', 'undici', 'playwright-core'],
  // Bundled CommonJS packages (commander, cli-table3) call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __platRequire } from 'node:module'; const require = __platRequire(import.meta.url);",
  },
  minify: true,
  keepNames: true,
  plugins: [noZodLocales],
  metafile: true,
  logLevel: 'warning',
});
writeFileSync('dist/bundle/meta.json', JSON.stringify(result.metafile));
