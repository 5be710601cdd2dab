import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processHome } from '../helpers/spawn.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'plat-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A home whose embedded platform exists (made by a first command). */
let env: Record<string, string>;
beforeAll(() => {
  env = processHome('plat-launcher-home');
  expect(spawnSync(join(ROOT, 'bin/plat'), ['local', 'init'], { env }).status).toBe(0);
});

interface Start {
  /** The command the launcher ran (`exec …`), from the shell's trace. */
  exec: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a launcher under `sh -x` to see which command it chose, and what that printed. */
function launch(launcher: string, argv: string[], extraEnv: Record<string, string> = {}): Start {
  const r = spawnSync('sh', ['-x', launcher, ...argv], { env: { ...env, ...extraEnv }, encoding: 'utf8' });
  const lines = r.stderr.split('\n');
  const exec = (lines.find((l) => l.startsWith('+ exec ')) ?? '').slice('+ exec '.length);
  const stderr = lines.filter((l) => !l.startsWith('+ ')).join('\n');
  return { exec, code: r.status, stdout: r.stdout, stderr };
}

/** The same command run the ordinary way, `node bin/plat.js …`. */
function direct(argv: string[]): Omit<Start, 'exec'> {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/plat.js'), ...argv], { env, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What a user sees of a run. */
const outcome = (s: Omit<Start, 'exec'> & { exec?: string }) => ({ code: s.code, stdout: s.stdout, stderr: s.stderr });

/** A copy of the installed package (bin and the snapshot; the rest linked) whose snapshot a test may spoil. */
function installCopy(name: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'bin'), join(root, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist/snapshot'), join(root, 'dist/snapshot'), { recursive: true, preserveTimestamps: true });
  symlinkSync(join(ROOT, 'dist/bundle'), join(root, 'dist/bundle'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  symlinkSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  return root;
}

describe('bin/plat, the launcher', () => {
  it('needs the build and its snapshot', () => {
    expect(existsSync(join(ROOT, 'dist/snapshot/plat.blob')), 'run `npm run build` first (npm test does)').toBe(true);
    expect(readFileSync(join(ROOT, 'dist/snapshot/node'), 'utf8').trim()).not.toBe('');
  });

  it('starts from the snapshot when it fits, and prints exactly what plat.js prints', () => {
    for (const argv of [
      ['users', 'list', '-o', 'ids'],
      ['--json', 'projects', 'list'],
      ['projects', 'get', 'no-such-project'],
      ['users', 'list', '--no-such-flag'],
      ['--help'],
      ['users', '--help'],
    ]) {
      const started = launch(join(ROOT, 'bin/plat'), argv);
      expect(started.exec, argv.join(' ')).toMatch(
        / --snapshot-blob \S+\/dist\/snapshot\/plat\.blob \S+\/bin\/plat\.js/,
      );
      expect(outcome(started), argv.join(' ')).toEqual(outcome(direct(argv)));
    }
    expect(direct(['projects', 'get', 'no-such-project']).code).toBe(5);
  });

  it('prints the same on a terminal, colours and table included', () => {
    // util-linux's `script` gives the command a pseudo-terminal; its output is what the terminal shows.
    const onTerminal = (command: string) =>
      spawnSync('script', ['-qec', command, '/dev/null'], { env, encoding: 'utf8' }).stdout;
    const launched = onTerminal(`${join(ROOT, 'bin/plat')} users list`);
    expect(launched).toContain('\u001b[32mactive\u001b[39m');
    expect(launched).toContain('┌');
    expect(launched).toBe(onTerminal(`node ${join(ROOT, 'bin/plat.js')} users list`));
  });

  it('answers --version from package.json without starting Node.js, or through plat.js when it cannot', () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    for (const flag of ['--version', '-V']) {
      const started = launch(join(ROOT, 'bin/plat'), [flag], { version: 'not this' });
      expect(started).toEqual({ exec: '', code: 0, stdout: `${version}\n`, stderr: '' });
    }
    // A package.json written on one line: the shell finds no version; plat.js reads it.
    const root = installCopy('one-line-package-json');
    rmSync(join(root, 'package.json'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'plat-cli', version: '9.8.7', type: 'module' }));
    const started = launch(join(root, 'bin/plat'), ['--version']);
    expect(started.exec).toBe(`node ${root}/bin/plat.js --version`);
    expect(outcome(started)).toEqual({ code: 0, stdout: '9.8.7\n', stderr: '' });
  });

  it('is found through a symlink, as package managers link it onto the PATH', () => {
    const linkDir = join(dir, 'dot-bin');
    mkdirSync(linkDir);
    symlinkSync(join(ROOT, 'bin/plat'), join(linkDir, 'plat'));
    const started = launch(join(linkDir, 'plat'), ['users', 'list', '-o', 'ids']);
    expect(started.exec).toContain(`--snapshot-blob ${ROOT.replace(/\/$/, '')}/bin/../dist/snapshot/plat.blob`);
    expect(outcome(started)).toEqual(outcome(direct(['users', 'list', '-o', 'ids'])));
  });

  it('starts without the snapshot when it does not fit, with the same results', () => {
    const expected = outcome(direct(['users', 'list', '-o', 'ids']));
    expect(expected).toMatchObject({ code: 0, stdout: expect.stringMatching(/^user_\w+\n$/) });
    const cases: [string, (root: string) => Record<string, string>][] = [
      // V8 flags must match the blob's; NODE_OPTIONS may carry some.
      ['NODE_OPTIONS', () => ({ NODE_OPTIONS: '--max-old-space-size=512' })],
      [
        'no blob (its build failed, or the package was just unpacked)',
        (root) => {
          rmSync(join(root, 'dist/snapshot/plat.blob'));
          return {};
        },
      ],
      [
        'a blob built by another Node.js binary',
        (root) => {
          writeFileSync(join(root, 'dist/snapshot/node'), '/bin/sh\n');
          return {};
        },
      ],
      [
        'a Node.js binary replaced after the blob was built',
        (root) => {
          const past = new Date('2001-01-01T00:00:00Z');
          utimesSync(join(root, 'dist/snapshot/plat.blob'), past, past);
          return {};
        },
      ],
    ];
    for (const [what, spoil] of cases) {
      const root = installCopy(what.replace(/\W+/g, '-'));
      const extra = spoil(root);
      const started = launch(join(root, 'bin/plat'), ['users', 'list', '-o', 'ids'], extra);
      expect(started.exec, what).toBe(`node ${root}/bin/plat.js users list -o ids`);
      expect(outcome(started), what).toEqual(expected);
    }
  });
});

describe('bin/snapshot.js, which builds the snapshot (npm run build, and after npm install)', () => {
  const build = (root: string, argv: string[] = []) =>
    spawnSync(process.execPath, [join(root, 'bin/snapshot.js'), ...argv], { encoding: 'utf8' });

  it('builds a blob for the Node.js running it, which the launcher then starts from', () => {
    const root = installCopy('rebuilt');
    rmSync(join(root, 'dist/snapshot/plat.blob'));
    rmSync(join(root, 'dist/snapshot/node'));
    const r = build(root);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(root, 'dist/snapshot/node'), 'utf8')).toBe(`${process.execPath}\n`);
    const started = launch(join(root, 'bin/plat'), ['users', 'list', '-o', 'ids']);
    expect(started.exec).toContain('--snapshot-blob');
    expect(outcome(started)).toEqual(outcome(direct(['users', 'list', '-o', 'ids'])));
  });

  it('after installing into a checkout not built yet, does nothing and fails nothing; a strict build fails', () => {
    const root = installCopy('unbuilt');
    rmSync(join(root, 'dist/snapshot'), { recursive: true });
    expect(build(root)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(existsSync(join(root, 'dist/snapshot/plat.blob'))).toBe(false);
    const strict = build(root, ['--strict']);
    expect(strict.status).toBe(1);
    expect(strict.stderr).toContain('plat: no startup snapshot (dist/snapshot/plat.cjs is missing');
  });

  it('leaves no blob when building fails, so that plat starts without one', () => {
    const root = installCopy('broken');
    writeFileSync(join(root, 'dist/snapshot/plat.cjs'), 'throw new Error("broken bundle");\n');
    const r = build(root);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^plat: no startup snapshot \(building it failed: [\s\S]*broken bundle/);
    expect(existsSync(join(root, 'dist/snapshot/plat.blob'))).toBe(false);
    expect(existsSync(join(root, 'dist/snapshot/node'))).toBe(false);
    expect(launch(join(root, 'bin/plat'), ['--help']).exec).toMatch(/^node \S+\/bin\/plat\.js --help$/);
  });
});
