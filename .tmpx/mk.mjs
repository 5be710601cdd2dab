import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
const noZodLocales = { name: 'no-zod-locales', setup(b) {
  b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) => args.importer.includes('/zod/') ? { path: 'zod-locales', namespace: 'plat-stub' } : undefined);
  b.onLoad({ filter: /.*/, namespace: 'plat-stub' }, () => ({ contents: 'export {};', loader: 'js' })); } };
const variants = JSON.parse(process.argv[2]);
for (const [name, mods] of Object.entries(variants)) {
  const src = `import { startupSnapshot } from 'node:v8';\n${mods.map((m, i) => `import * as m${i} from '${m}';`).join('\n')}\n(globalThis as any).__keep = [${mods.map((_, i) => `m${i}`).join(',')}];\nstartupSnapshot.setDeserializeMainFunction(() => {});\n`;
  writeFileSync(`${name}.ts`, src);
  await build({ entryPoints: [`${name}.ts`], bundle: true, platform: 'node', target: 'node20', format: 'cjs', minify: true, external: ['keytar', 'undici'], outfile: `/tmp/s2/${name}.cjs`, logLevel: 'error', plugins: [noZodLocales], define: { 'import.meta.url': 'globalThis.__u' }, banner: { js: 'var __platBuiltins = require; var require = (id) => (globalThis.__platRequire ?? __platBuiltins)(id);' } });
  const r = spawnSync(process.execPath, ['--no-rehash-snapshot', '--snapshot-blob', `${name}.blob`, '--build-snapshot', `${name}.cjs`], { cwd: '/tmp/s2', encoding: 'utf8' });
  if (r.status) console.log(name, r.stderr.slice(-500));
}
