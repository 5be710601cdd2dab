// The build's output, all made with esbuild (tsc only checks: `npm run typecheck`):
// - dist/bundle: the CLI, one ESM entry (src/startup/main.ts) plus a chunk per lazily imported module, so that a
//   cold start reads a handful of files instead of hundreds (and unused code such as zod's locales is dropped), each
//   with a linked source map. better-sqlite3's JavaScript is bundled too (its addon is a .node file loaded at run
//   time); keytar, undici and the native addons that check imported password hashes (@node-rs/argon2,
//   @node-rs/bcrypt: src/platform/auth/imported-hashes.ts loads them when first needed) stay external.
//   dist/bundle/meta.json maps every chunk to its sources (the lazy-load test reads it).
// - dist/snapshot: the same CLI as one CommonJS script, the entry of the startup snapshot (src/startup/snapshot.ts),
//   and what it requires at run time.
// - bin/plat.js, assembled from src/startup/launcher.sh and src/startup/entry.js, and bin/snapshot.js (the install
//   step, which builds the blob), copied from src/startup/build-snapshot.js.
// - dist/<folder>/…js: every module of src/ on its own, for the scripts and tests that import one (scripts/bench.mjs,
//   gen-docs.mjs, …). Not in the package: plat runs from the bundle.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Native addons (a .node file each, chosen per platform by the package): required from node_modules when used. */
const ADDONS = ['@node-rs/argon2', '@node-rs/bcrypt'];

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: ['keytar', 'undici', ...ADDONS],
  minify: true,
  // Not keepNames: it redefines the name of every function, which turns each one's properties into a dictionary —
  // a quarter of a megabyte more in the startup snapshot, read at every start. plat's errors name themselves.
  keepNames: false,
  plugins: [noZodLocales],
  // The version the CLI reports (src/cli/main.ts), so that a start need not read package.json for it.
  define: { PLAT_VERSION: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version) },
  logLevel: 'warning',
};

/**
 * In the snapshot's script, packages left out of it are loaded with require() when first used (dynamic import() is
 * not available to a snapshot's code), from beside dist/bundle: keytar, undici and the password-hash addons from
 * node_modules, as everywhere;
 * and the XML and SAML packages of
 * single sign-on (@xmldom/xmldom, @node-saml/node-saml: only saving an SSO configuration and signing in through an
 * identity provider use them, ~95 kB of script every other start would pay for), nodemailer (only `plat serve
 * --smtp-url` sends mail), @simplewebauthn/server (only passkeys use it, with its ASN.1 and X.509 packages: its
 * CommonJS build); and the ESM-only packages of
 * signing in — jose and openid-client (with oauth4webapi) — from CommonJS copies made into dist/snapshot. A lazily
 * imported module left in the script would still cost every start: esbuild hoists its functions to the top.
 */
/** Required from node_modules. */
const FROM_NODE_MODULES = [
  'keytar',
  'undici',
  ...ADDONS,
  '@xmldom/xmldom',
  '@node-saml/node-saml',
  'nodemailer',
  '@simplewebauthn/server',
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

rmSync('dist', { recursive: true, force: true });
const result = await build({
  ...common,
  entryPoints: { main: 'src/startup/main.ts' },
  outdir: 'dist/bundle',
  splitting: true,
  format: 'esm',
  chunkNames: 'chunks/[name]-[hash]',
  // A .map beside each file, shipped: `plat serve` turns source maps on (process.setSourceMapsEnabled), and any
  // command run as `NODE_OPTIONS=--enable-source-maps plat …` (which starts without the snapshot) does, so that a
  // stack trace names src/…ts lines instead of a minified column. Without the sources' text, which a stack trace does
  // not need. Commands that do not ask never read the maps: cold starts are unchanged.
  sourcemap: 'linked',
  sourcesContent: false,
  // Bundled CommonJS packages (commander, cli-table3) call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __platRequire } from 'node:module'; const require = __platRequire(import.meta.url);",
  },
  metafile: true,
});
writeFileSync('dist/bundle/meta.json', JSON.stringify(result.metafile));

/** The snapshot's require(): Node's built-ins while it is built, then __platRequire (set by its entry at run time). */
const SNAPSHOT_REQUIRE =
  'var __platBuiltins = require; var require = (id) => (globalThis.__platRequire ?? __platBuiltins)(id);';
/**
 * The snapshot's code reaches `Headers`, `Request` and `Response` through `globalThis.__platWeb`: the light classes
 * while it warms up (src/startup/light-fetch.ts, `useLightFetch`), the globals otherwise. From Node.js 22 on, those
 * globals are V8 lazy data properties: reading or saving one loads Node's HTTP client, which cannot load while a
 * snapshot is built (no WebAssembly), so the warm-up must leave them untouched rather than swap them and back.
 */
const WEB = ['Headers', 'Request', 'Response'];
const SNAPSHOT_WEB = `globalThis.__platWeb = { light: null, ${WEB.map(
  (name) => `get ${name}() { return (this.light ?? globalThis).${name}; }`,
).join(', ')} };`;
const WEB_CLASSES = Object.fromEntries(WEB.map((name) => [name, `globalThis.__platWeb.${name}`]));

// The same CLI as one CommonJS script, the entry of the startup snapshot (src/startup/snapshot.ts; bin/snapshot.js
// builds the blob). While the snapshot is built, require() can load only Node's built-in modules; at run time the
// entry sets __platRequire, which loads the rest (the SQLite addon, the packages above) from beside dist/bundle.
await build({
  ...common,
  entryPoints: ['src/startup/snapshot.ts'],
  outfile: 'dist/snapshot/plat.cjs',
  format: 'cjs',
  banner: { js: `${SNAPSHOT_REQUIRE} ${SNAPSHOT_WEB}` },
  define: { ...common.define, 'import.meta.url': 'globalThis.__platModuleUrl', ...WEB_CLASSES },
  plugins: [noZodLocales, requireExternals],
});

// What the snapshot's script must not hold, checked on the script as written (read once for every check).
const snapshotScript = readFileSync('dist/snapshot/plat.cjs', 'utf8');

// The snapshot's code reaches the fetch classes through __platWeb only when it needs them: naming Node's globals would
// load its HTTP client while the snapshot is built (Node.js 22 on), and one kept from evaluation (`extends`, an alias)
// would keep the warm-up's light class for good.
{
  const kept =
    /globalThis\.(Headers|Request|Response)\b|extends globalThis\.__platWeb|[=,(]\s*globalThis\.__platWeb\.\w+\s*[,;)]/;
  if (kept.test(snapshotScript))
    throw new Error(`dist/snapshot/plat.cjs holds a fetch class outside __platWeb: ${snapshotScript.match(kept)?.[0]}`);
}

// V8 keeps a script's source as one-byte text only while every character of it is Latin-1: one character beyond
// (a '…' in a tagged template, which esbuild cannot escape) doubles the whole script in the snapshot, read at every
// start. Pages write such characters as HTML entities.
{
  let at = 0;
  while (at < snapshotScript.length && snapshotScript.charCodeAt(at) <= 0xff) at++;
  if (at < snapshotScript.length) {
    const code = snapshotScript.codePointAt(at)?.toString(16);
    const around = snapshotScript.slice(Math.max(0, at - 60), at + 20);
    throw new Error(`dist/snapshot/plat.cjs holds U+${code}, beyond Latin-1: ${around}`);
  }
}

// Code started from a snapshot cannot run import() (Node gives it no module loader): one left in the script would fail
// only when reached. Packages are required instead (requireExternals), Node's modules imported statically.
if (/\bimport\(/.test(snapshotScript)) {
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

// bin/plat.js: the launcher's shell text inside a JavaScript comment, then the JavaScript entry (see launcher.sh).
const launcher = readFileSync('src/startup/launcher.sh', 'utf8');
if (launcher.includes('*/')) throw new Error('src/startup/launcher.sh must not contain */ (it ends the comment)');
mkdirSync('bin', { recursive: true });
const entry = readFileSync('src/startup/entry.js', 'utf8');
writeFileSync('bin/plat.js', `#!/usr/bin/env node\ntrue /*\n${launcher}*/\n\n${entry}`, { mode: 0o755 });
chmodSync('bin/plat.js', 0o755);
writeFileSync('bin/snapshot.js', readFileSync('src/startup/build-snapshot.js', 'utf8'), { mode: 0o755 });
chmodSync('bin/snapshot.js', 0o755);

// Every module of src/ on its own, as it is (no bundling, no minifying), for scripts and tests.
const modules = readdirSync('src', { recursive: true }).filter((f) => f.endsWith('.ts'));
await build({
  entryPoints: modules.map((f) => `src/${f}`),
  outdir: 'dist',
  outbase: 'src',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
});
