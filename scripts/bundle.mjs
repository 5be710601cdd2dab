// Bundles the CLI with esbuild into dist/bundle: one ESM entry plus a chunk per lazily imported module, so that a
// cold start reads a handful of files instead of hundreds (and unused code such as zod's locales is dropped).
// better-sqlite3's JavaScript is bundled too (its addon is a .node file loaded at run time); keytar and undici
// stay external. dist/bundle/meta.json maps every chunk to its sources (the lazy-load test reads it).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

/** zod re-exports all of its ~40 message locales; plat uses none but the default (English), which zod loads itself. */
const noZodLocales = {
  name: 'no-zod-locales',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/zod/') ? { path: 'zod-locales', namespace: 'plat-stub' } : undefined,
    );
    b.onLoad({ filter: /^zod-locales$/, namespace: 'plat-stub' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/**
 * commander requires child_process when it is loaded, only to spawn executable subcommands, which plat has none of:
 * it gets `spawn` from child_process on first use instead, and no start (the snapshot included) loads that module.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes('/commander/') ? { path: 'commander-child-process', namespace: 'plat-stub' } : undefined,
    );
    b.onLoad({ filter: /^commander-child-process$/, namespace: 'plat-stub' }, () => ({
      contents: "module.exports = { get spawn() { return require('node:child_process').spawn; } };",
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: ['keytar', 'undici'],
  minify: true,
  // Not keepNames: it redefines the name of every function, which turns each one's properties into a dictionary —
  // a quarter of a megabyte more in the startup snapshot, read at every start. plat's errors name themselves.
  keepNames: false,
  plugins: [noZodLocales, lazyChildProcess],
  // The version the CLI reports (src/cli/main.ts), so that a start need not read package.json for it.
  define: { PLAT_VERSION: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version) },
  logLevel: 'warning',
};

/**
 * In the snapshot's script, packages left out of it are loaded with require() when first used (dynamic import() is
 * not available to a snapshot's code), from beside dist/bundle: keytar and undici from node_modules, as everywhere;
 * @hono/node-server from node_modules too (`plat serve` never starts from the snapshot), and the XML and SAML packages of
 * single sign-on (@xmldom/xmldom, @node-saml/node-saml: only saving an SSO configuration and signing in through an
 * identity provider use them, ~95 kB of script every other start would pay for), nodemailer (only `plat serve
 * --smtp-url` sends mail); and the ESM-only packages of
 * signing in — jose and openid-client (with oauth4webapi) — from CommonJS copies made into dist/snapshot. A lazily
 * imported module left in the script would still cost every start: esbuild hoists its functions to the top.
 */
/** Required from node_modules. */
const FROM_NODE_MODULES = [
  'keytar',
  'undici',
  '@hono/node-server',
  '@xmldom/xmldom',
  '@node-saml/node-saml',
  'nodemailer',
];
/** ESM-only: required from the CommonJS copy of each made into dist/snapshot (see the end of this script). */
const COPIED = ['jose', 'openid-client'];
const requireExternals = {
  name: 'require-externals',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${[...FROM_NODE_MODULES, ...COPIED].join('|')})$`) }, (args) =>
      args.namespace === 'external' ? undefined : { path: args.path, namespace: 'external' },
    );
    // What the stand-in module requires is left to require() at run time.
    b.onResolve({ filter: /.*/, namespace: 'external' }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'external' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(COPIED.includes(args.path) ? `../snapshot/${args.path}.cjs` : args.path)});`,
      loader: 'js',
    }));
  },
};

rmSync('dist/bundle', { recursive: true, force: true });
const result = await build({
  ...common,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist/bundle',
  splitting: true,
  format: 'esm',
  chunkNames: 'chunks/[name]-[hash]',
  // A .map beside each file, for `plat serve`, which alone turns source maps on (process.setSourceMapsEnabled): the
  // stack trace of an internal error in its log then names src/…ts lines instead of a minified column. Without the
  // sources' text, which a stack trace does not need. Other commands never read the maps: cold starts are unchanged.
  sourcemap: 'linked',
  sourcesContent: false,
  // Bundled CommonJS packages (commander, cli-table3) call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __platRequire } from 'node:module'; const require = __platRequire(import.meta.url);",
  },
  metafile: true,
});
writeFileSync('dist/bundle/meta.json', JSON.stringify(result.metafile));

// The same CLI as one CommonJS script, the entry of the startup snapshot (src/cli/snapshot.ts; bin/snapshot.js
// builds the blob). While the snapshot is built, require() can load only Node's built-in modules; at run time the
// entry sets __platRequire, which loads the rest (the SQLite addon, the packages above) from beside dist/bundle.
rmSync('dist/snapshot', { recursive: true, force: true });
await build({
  ...common,
  entryPoints: ['src/cli/snapshot.ts'],
  outfile: 'dist/snapshot/plat.cjs',
  format: 'cjs',
  banner: {
    js: 'var __platBuiltins = require; var require = (id) => (globalThis.__platRequire ?? __platBuiltins)(id);',
  },
  define: { ...common.define, 'import.meta.url': 'globalThis.__platModuleUrl' },
  plugins: [noZodLocales, lazyChildProcess, requireExternals],
});

// Code started from a snapshot cannot run import() (Node gives it no module loader): one left in the script would fail
// only when reached. Packages are required instead (requireExternals), Node's modules got with process.getBuiltinModule.
if (/\bimport\(/.test(readFileSync('dist/snapshot/plat.cjs', 'utf8'))) {
  throw new Error('dist/snapshot/plat.cjs calls import(), which fails in code started from the snapshot');
}

// The CommonJS copies of jose and openid-client (oauth4webapi inside) that the snapshot's script requires.
for (const name of COPIED) {
  await build({
    ...common,
    stdin: { contents: `export * from '${name}';`, resolveDir: '.', loader: 'js' },
    outfile: `dist/snapshot/${name}.cjs`,
    format: 'cjs',
  });
}
