import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where the packages really are: node_modules may be a link to a shared install (a git worktree's). */
const PACKAGES = `${realpathSync(join(ROOT, 'node_modules'))}/`;

/** A file as these tests name it: `node_modules/…` for a package's, else relative to the project. */
const named = (path: string) =>
  path.startsWith(PACKAGES) ? `node_modules/${path.slice(PACKAGES.length)}` : path.replace(ROOT, '');
const dir = mkdtempSync(join(tmpdir(), 'plat-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The bundle's map from each output file to the sources it holds (written by scripts/bundle.mjs). */
function bundleInputs(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(join(ROOT, 'dist/bundle/meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return new Map(
    Object.entries(meta.outputs).map(([out, o]) => [out, Object.keys(o.inputs).map((i) => named(resolve(ROOT, i)))]),
  );
}

/**
 * Runs the built `plat` with a resolve hook and returns the sources it loaded: each bundle file it read stands for
 * the sources inside it; external packages (SQLite, undici, keytar) appear as their own files.
 */
function loaded(
  argv: string[],
  env: Record<string, string> = {},
): { code: number | null; stdout: string; modules: string[]; builtins: string[] } {
  const trace = join(dir, `${(argv.join('_') || 'none').replace(/[^\w.-]+/g, '_')}.txt`);
  const r = spawnSync(process.execPath, ['--import', './test/cli/fixtures/trace-loads.mjs', 'bin/plat.js', ...argv], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      ...process.env,
      ...env,
      PLAT_TRACE_FILE: trace,
      PLAT_CREDENTIAL_STORE: 'file',
      PLAT_CONFIG_DIR: join(dir, 'c'),
      PLAT_DATA_DIR: join(dir, 'd'),
    },
  });
  const urls = existsSync(trace) ? readFileSync(trace, 'utf8').split('\n') : [];
  const files = urls.filter((u) => u.startsWith('file:')).map((u) => named(fileURLToPath(u)));
  const inputs = bundleInputs();
  const modules = [...new Set(files.flatMap((f) => inputs.get(f) ?? [f]))];
  return { code: r.status, stdout: r.stdout + r.stderr, modules, builtins: urls.filter((u) => u.startsWith('node:')) };
}

const heavy = (m: string) =>
  /^src\/(cli\/commands|client|platform|auth)\/|node_modules\/(undici|better-sqlite3|keytar|jose)\//.test(m);

describe('what --version and --help load', () => {
  it('needs the build', () => {
    expect(existsSync(join(ROOT, 'dist/bundle/meta.json')), 'run `npm run build` first (npm test does)').toBe(true);
  });

  it('--version and root --help load no command module, no client, no SQLite, no undici', () => {
    expect(loaded(['--version']).modules.filter((m) => !m.startsWith('bin/'))).toEqual([]);
    for (const argv of [['--help'], []]) {
      const r = loaded(argv);
      expect(r.modules).toContain('src/cli/program.ts');
      expect(r.modules.filter(heavy)).toEqual([]);
      expect(r.modules.filter((m) => m.includes('node_modules/zod/'))).toEqual([]);
    }
    expect(loaded(['--version']).stdout).toBe(
      `${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`,
    );
  });

  it('a noun loads its own module only', () => {
    const r = loaded(['users', '--help']);
    expect(r.code).toBe(0);
    expect(r.modules.filter(heavy)).toEqual(['src/cli/commands/users.ts']);
  });

  it('a remote command never loads the platform or SQLite', () => {
    const r = loaded(['--base-url', 'http://127.0.0.1:9', '--max-retries', '0', 'users', 'list', '--org', 'org_1'], {
      PLAT_API_KEY: 'plat_live_x',
    });
    expect(r.code, r.stdout).toBe(9);
    expect(r.modules.filter(heavy).filter((m) => !m.startsWith('src/client/') && !m.includes('/undici/'))).toEqual([
      'src/cli/commands/users.ts',
    ]);
    expect(r.modules.some((m) => m.includes('node_modules/undici/'))).toBe(true);
  });

  it("an embedded command never loads undici, neither the package nor Node's own HTTP client", () => {
    const r = loaded(['users', 'list', '-o', 'ids']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.modules).toContain('src/platform/index.ts');
    expect(r.modules).toContain('node_modules/better-sqlite3/lib/database.js');
    expect(r.modules.filter((m) => m.includes('/undici/'))).toEqual([]);
    expect(r.builtins).toContain('node:fs');
    expect(r.builtins.filter((m) => m.includes('undici'))).toEqual([]);
  });
});
