import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/platform/auth/api-keys.js';
import { processHome } from '../helpers/spawn.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const PLAT = join(ROOT, 'bin/plat.js');
const dir = mkdtempSync(join(tmpdir(), 'plat-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A home whose embedded platform exists (made by a first command). */
let env: Record<string, string>;
beforeAll(() => {
  env = processHome('plat-launcher-home');
  expect(spawnSync('sh', [PLAT, 'local', 'init'], { env }).status).toBe(0);
});

interface Started {
  /** The command the launcher ran (`exec …`), from the shell's trace; empty when it ran none. */
  exec: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs bin/plat.js as the shell reads it, under `sh -x` to see which command it chose, and what that printed. */
function launch(launcher: string, argv: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Started {
  const r = spawnSync('sh', ['-x', launcher, ...argv], {
    env: { ...env, ...opts.env },
    cwd: opts.cwd,
    encoding: 'utf8',
  });
  const lines = r.stderr.split('\n');
  const exec = (lines.find((l) => l.startsWith('+ exec ')) ?? '').slice('+ exec '.length);
  const stderr = lines.filter((l) => !l.startsWith('+ ')).join('\n');
  return { exec, code: r.status, stdout: r.stdout, stderr };
}

/** The same command run as JavaScript, `node bin/plat.js …`. */
function direct(argv: string[], extra: Record<string, string> = {}): Omit<Started, 'exec'> {
  const r = spawnSync(process.execPath, [PLAT, ...argv], { env: { ...env, ...extra }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The `node` the launcher finds on the PATH. */
const whichNode = () => spawnSync('sh', ['-c', 'command -v node'], { env, encoding: 'utf8' }).stdout.trim();

/** What a user sees of a run. */
const outcome = (s: Omit<Started, 'exec'>) => ({ code: s.code, stdout: s.stdout, stderr: s.stderr });

const SNAPSHOT = / --no-rehash-snapshot --snapshot-blob \S+\/dist\/snapshot\/plat\.blob \S+\/bin\/plat\.js /;

/** A copy of the installed package (bin and the snapshot; the rest linked) that a test may spoil. */
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

describe('bin/plat.js read by the shell: the launcher', () => {
  it('needs the build and its snapshot', () => {
    expect(existsSync(join(ROOT, 'dist/snapshot/plat.blob')), 'run `npm run build` first (npm test does)').toBe(true);
    expect(readFileSync(join(ROOT, 'dist/snapshot/node'), 'utf8').trim()).not.toBe('');
  });

  it('starts from the snapshot when it fits, and prints exactly what Node.js running the file prints', () => {
    for (const argv of [
      ['users', 'list', '-o', 'ids'],
      ['--json', 'projects', 'list'],
      ['projects', 'get', 'no-such-project'],
      ['users', 'list', '--no-such-flag'],
      ['--help'],
      ['users', '--help'],
    ]) {
      const started = launch(PLAT, argv);
      expect(started.exec, argv.join(' ')).toMatch(SNAPSHOT);
      expect(outcome(started), argv.join(' ')).toEqual(outcome(direct(argv)));
    }
    expect(direct(['projects', 'get', 'no-such-project']).code).toBe(5);
    expect(direct(['users', 'list', '-o', 'ids']).stdout).toMatch(/^user_\w+\n$/);
  });

  it('loads what the snapshot leaves out when a command needs it: jose, for a bearer token the platform verifies', () => {
    // The snapshot requires its own CommonJS copies of jose and openid-client (scripts/bundle.mjs); a token that is
    // not one of the platform's is refused with 401 (3) by jose's verification, as Node.js running the file does.
    const bearer = { PLAT_TOKEN: 'eyJhbGciOiJFUzI1NiIsImtpZCI6Im5vbmUifQ.e30.c2lnbmF0dXJl' };
    const started = launch(PLAT, ['users', 'list'], { env: bearer });
    expect(started.exec).toMatch(SNAPSHOT);
    const seen = (s: Omit<Started, 'exec'>) => ({ ...outcome(s), stderr: s.stderr.replace(/req_\w+/, 'req_…') });
    expect(seen(started)).toEqual(seen(direct(['users', 'list'], bearer)));
    expect(seen(started)).toEqual({
      code: 3,
      stdout: '',
      stderr: 'plat: the access token was not signed by this instance [request req_…]\n',
    });
  });

  it('keeps timers however late a command sets its first: a 429 met after 3 s is waited out and retried', async () => {
    // The snapshot is built by running a command, whose timers Node.js's timer lists remember; a process started from
    // it once never armed a timer first set after the build's last expiry, and ended silently as if done (exit 0).
    // Here the key comes on stdin after 3.5 s, so the 429's wait is the command's first timer.
    const user = {
      id: 'user_0000000000000000000001',
      email: 'a@example.test',
      name: 'A',
      avatarUrl: null,
      role: 'owner',
    };
    const at = '2026-01-01T00:00:00.000Z';
    const page = {
      data: [
        {
          ...user,
          status: 'active',
          emailVerified: true,
          lastLoginAt: null,
          createdAt: at,
          updatedAt: at,
          metadata: {},
        },
      ],
      pagination: { total: 1, page: 1, perPage: 20, totalPages: 1, hasMore: false },
    };
    let calls = 0;
    const server = createServer((_req, res) => {
      calls += 1;
      const json = { 'content-type': 'application/json' };
      if (calls === 1) {
        const body = { error: { code: 'rate_limited', message: 'Too many requests' } };
        res.writeHead(429, { ...json, 'retry-after': '1' }).end(JSON.stringify(body));
      } else res.writeHead(200, json).end(JSON.stringify(page));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const child = spawn('sh', ['-x', PLAT, '--api-key-stdin', 'users', 'list', '-o', 'ids'], {
        env: { ...env, PLAT_BASE_URL: `http://127.0.0.1:${port}/v2`, PLAT_ORG: 'org_0000000000000000000000' },
      });
      let [stdout, stderr] = ['', ''];
      child.stdout.on('data', (c: Buffer) => (stdout += c));
      child.stderr.on('data', (c: Buffer) => (stderr += c));
      const key = setTimeout(() => child.stdin.end(`${generateApiKey('live')}\n`), 3500);
      const code = await new Promise((resolve) => child.on('close', resolve));
      clearTimeout(key);
      expect(stderr).toMatch(SNAPSHOT);
      expect({ code, stdout, calls }).toEqual({ code: 0, stdout: `${user.id}\n`, calls: 2 });
    } finally {
      server.close();
    }
  }, 30_000);

  it('starts plat serve the ordinary way: a server hashes what strangers send with a seed of its own', () => {
    for (const argv of [
      ['serve', '--help'],
      ['--profile', 'local', 'serve', '--help'],
    ]) {
      const started = launch(PLAT, argv);
      expect(started.exec).toBe(`node ${PLAT} ${argv.join(' ')}`);
      expect(outcome(started)).toEqual(outcome(direct(argv)));
    }
  });

  it('prints the same on a terminal, colours and table included', () => {
    // util-linux's `script` gives the command a pseudo-terminal; its output is what the terminal shows.
    const onTerminal = (command: string) =>
      spawnSync('script', ['-qec', command, '/dev/null'], { env, encoding: 'utf8' }).stdout;
    const launched = onTerminal(`sh ${PLAT} users list`);
    expect(launched).toContain('\u001b[32mactive\u001b[39m');
    expect(launched).toContain('┌');
    expect(launched).toBe(onTerminal(`node ${PLAT} users list`));
  });

  it("reports package.json's version from the bundle and the snapshot too (commander's --version)", () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    // Two arguments: the launcher and bin/plat.js pass them on to the CLI.
    const started = launch(PLAT, ['--version', '--quiet']);
    expect(started.exec).toMatch(SNAPSHOT);
    expect(outcome(started)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(outcome(direct(['--version', '--quiet']))).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('answers --version from package.json without starting Node.js, or through Node.js when it cannot', () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    for (const flag of ['--version', '-V']) {
      const started = launch(PLAT, [flag], { env: { version: 'not this' } });
      expect(started).toEqual({ exec: '', code: 0, stdout: `${version}\n`, stderr: '' });
    }
    // A package.json written on one line: the shell finds no version; Node.js reads it.
    const root = installCopy('one-line-package-json');
    rmSync(join(root, 'package.json'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'plat-cli', version: '9.8.7', type: 'module' }));
    const started = launch(join(root, 'bin/plat.js'), ['--version']);
    expect(started.exec).toBe(`node ${root}/bin/plat.js --version`);
    expect(outcome(started)).toEqual({ code: 0, stdout: '9.8.7\n', stderr: '' });
  });

  it('finds its package through the symlinks package managers put on the PATH, absolute or relative', () => {
    const links = join(dir, 'links');
    mkdirSync(join(links, 'deeper'), { recursive: true });
    symlinkSync(PLAT, join(links, 'plat'));
    symlinkSync('../plat', join(links, 'deeper', 'plat'));
    const expected = outcome(direct(['users', 'list', '-o', 'ids']));
    for (const [launcher, cwd] of [
      [join(links, 'plat'), undefined],
      [join(links, 'deeper', 'plat'), undefined],
      ['plat', links], // `sh plat` in the link's own directory: $0 has no slash
    ] as const) {
      const started = launch(launcher, ['users', 'list', '-o', 'ids'], { cwd });
      expect(started.exec, launcher).toMatch(SNAPSHOT);
      expect(started.exec, launcher).toContain(`${ROOT}/bin/plat.js users list -o ids`);
      expect(outcome(started), launcher).toEqual(expected);
    }
  });

  it('starts without the snapshot when it does not fit, or when PLAT_NO_SNAPSHOT=1, with the same results', () => {
    const expected = outcome(direct(['users', 'list', '-o', 'ids']));
    const stampOf = (root: string) => join(root, 'dist/snapshot/node');
    /** The cases where the blob was built by another `node`: said once, with the command that builds it again. */
    const told = new Set([
      'a blob built by another Node.js binary',
      'a Node.js binary replaced in place since, by an older build',
      'a Node.js binary replaced in place since, by a newer build',
    ]);
    const cases: [string, (root: string) => Record<string, string>][] = [
      // V8 flags must match the blob's; NODE_OPTIONS may carry some.
      ['NODE_OPTIONS', () => ({ NODE_OPTIONS: '--max-old-space-size=512' })],
      ['PLAT_NO_SNAPSHOT=1', () => ({ PLAT_NO_SNAPSHOT: '1' })],
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
          const { atime, mtime } = statSync(stampOf(root));
          writeFileSync(stampOf(root), '/bin/sh\n');
          utimesSync(stampOf(root), atime, mtime);
          return {};
        },
      ],
      [
        // An upgrade that replaces the binary in place keeps its path, not its modification time (whether newer or
        // older: packages carry the time they were built at).
        'a Node.js binary replaced in place since, by an older build',
        (root) => {
          const older = new Date(statSync(process.execPath).mtimeMs + 60_000);
          utimesSync(stampOf(root), older, older);
          return {};
        },
      ],
      [
        'a Node.js binary replaced in place since, by a newer build',
        (root) => {
          const newer = new Date(statSync(process.execPath).mtimeMs - 60_000);
          utimesSync(stampOf(root), newer, newer);
          return {};
        },
      ],
    ];
    for (const [what, spoil] of cases) {
      const root = installCopy(what.replace(/\W+/g, '-'));
      const extra = spoil(root);
      const started = launch(join(root, 'bin/plat.js'), ['users', 'list', '-o', 'ids'], { env: extra });
      expect(started.exec, what).toBe(`node ${root}/bin/plat.js users list -o ids`);
      const notice = told.has(what)
        ? `plat: the startup snapshot does not fit ${whichNode()} (upgraded, or another Node.js), so plat starts without it, slower; build it again with: node "${root}/bin/snapshot.js"\n`
        : '';
      expect(outcome(started), what).toEqual({ ...expected, stderr: notice + expected.stderr });
      // Once: the next start says nothing.
      expect(outcome(launch(join(root, 'bin/plat.js'), ['users', 'list', '-o', 'ids'], { env: extra })), what).toEqual(
        expected,
      );
    }
  });
});

describe('bin/snapshot.js, which builds the snapshot (npm run build, and after npm install)', () => {
  const build = (root: string, argv: string[] = [], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(root, 'bin/snapshot.js'), ...argv], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });

  it('builds a blob for the Node.js running it and stamps it with that binary and its time', () => {
    const root = installCopy('rebuilt');
    rmSync(join(root, 'dist/snapshot/plat.blob'));
    rmSync(join(root, 'dist/snapshot/node'));
    // The build runs a command once (src/startup/warm-up.ts) in a temporary directory, and leaves nothing there.
    const tmp = join(dir, 'build-tmp');
    mkdirSync(tmp);
    const r = build(root, ['--strict'], { TMPDIR: tmp });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(readdirSync(tmp)).toEqual([]);
    expect(readFileSync(join(root, 'dist/snapshot/node'), 'utf8')).toBe(`${process.execPath}\n`);
    expect(statSync(join(root, 'dist/snapshot/node')).mtimeMs).toBe(statSync(process.execPath).mtimeMs);
    const started = launch(join(root, 'bin/plat.js'), ['users', 'list', '-o', 'ids']);
    expect(started.exec).toMatch(SNAPSHOT);
    expect(outcome(started)).toEqual(outcome(direct(['users', 'list', '-o', 'ids'])));
    // Nothing of the warm-up's configuration or credential is left in the snapshot.
    for (const argv of [
      ['auth', 'status', '--json'],
      ['profiles', 'list', '--json'],
    ]) {
      expect(outcome(launch(join(root, 'bin/plat.js'), argv))).toEqual(outcome(direct(argv)));
    }
    // A build (as opposed to an install) leaves bin/plat.js as it is.
    expect(readFileSync(join(root, 'bin/plat.js'), 'utf8')).toBe(readFileSync(PLAT, 'utf8'));
  });

  it('after an install, makes bin/plat.js start as the launcher, which the system then runs by itself', () => {
    const root = installCopy('installed');
    const r = build(root, ['--install']);
    expect(r.status, r.stderr).toBe(0);
    const file = join(root, 'bin/plat.js');
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(PLAT, 'utf8').replace('#!/usr/bin/env node\n', '#!/bin/sh\n'));
    expect(statSync(file).mode & 0o777).toBe(0o755);
    // Run as a program: the kernel reads the first line; the shell starts Node.js from the snapshot.
    const ran = spawnSync(file, ['users', 'list', '-o', 'ids'], { env, encoding: 'utf8' });
    expect(outcome({ ...ran, code: ran.status })).toEqual(outcome(direct(['users', 'list', '-o', 'ids'])));
    expect(launch(file, ['--help']).exec).toMatch(SNAPSHOT);
    // And Node.js still reads the same file as JavaScript (Yarn runs package binaries with node).
    const viaNode = spawnSync(process.execPath, [file, 'users', 'list', '-o', 'ids'], { env, encoding: 'utf8' });
    expect({ code: viaNode.status, stdout: viaNode.stdout }).toEqual({ code: 0, stdout: ran.stdout });
  });

  it('leaves bin/plat.js alone in a git checkout', () => {
    const root = installCopy('checkout');
    mkdirSync(join(root, '.git'));
    expect(build(root, ['--install']).status).toBe(0);
    expect(readFileSync(join(root, 'bin/plat.js'), 'utf8')).toBe(readFileSync(PLAT, 'utf8'));
  });

  it('after installing into a checkout not built yet, does nothing and fails nothing; a strict build fails', () => {
    const root = installCopy('unbuilt');
    rmSync(join(root, 'dist/snapshot'), { recursive: true });
    expect(build(root, ['--install'])).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(existsSync(join(root, 'dist/snapshot/plat.blob'))).toBe(false);
    expect(readFileSync(join(root, 'bin/plat.js'), 'utf8')).toBe(readFileSync(PLAT, 'utf8'));
    const strict = build(root, ['--strict']);
    expect(strict.status).toBe(1);
    expect(strict.stderr).toContain('plat: no startup snapshot (dist/snapshot/plat.cjs is missing');
    // In a clone not built yet there is no bin/snapshot.js at all: the install step (package.json's) does nothing.
    rmSync(join(root, 'bin/snapshot.js'));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const postinstall = spawnSync('sh', ['-c', pkg.scripts.postinstall], { cwd: root, encoding: 'utf8' });
    expect(postinstall).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('never fails an install: whatever goes wrong, one line on stderr and exit status 0', () => {
    const root = installCopy('unwritable');
    // A directory where the blob goes: the build succeeds, putting the blob in place fails.
    rmSync(join(root, 'dist/snapshot/plat.blob'));
    mkdirSync(join(root, 'dist/snapshot/plat.blob/taken'), { recursive: true });
    const r = build(root, ['--install']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^plat: no startup snapshot \([^\n]+\); plat will start without it\.\n$/);
    expect(build(root, ['--strict']).status).not.toBe(0);
  });

  it('leaves no blob when building fails, so that plat starts without one', () => {
    const root = installCopy('broken');
    // As src/startup/snapshot.ts reports a failure, after modules Node warns about in snapshots (whose notices the build
    // leaves out): the reason must still show.
    writeFileSync(
      join(root, 'dist/snapshot/plat.cjs'),
      'require("node:tty");\nrequire("node:readline");\nprocess.stderr.write("plat snapshot: broken bundle\\n");\nprocess.exitCode = 1;\n',
    );
    const r = build(root, ['--install']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^plat: no startup snapshot \(building it failed: [^\n]*broken bundle[^\n]*\n$/);
    expect(existsSync(join(root, 'dist/snapshot/plat.blob'))).toBe(false);
    expect(existsSync(join(root, 'dist/snapshot/node'))).toBe(false);
    expect(readFileSync(join(root, 'bin/plat.js'), 'utf8')).toBe(readFileSync(PLAT, 'utf8'));
    expect(launch(join(root, 'bin/plat.js'), ['--help']).exec).toMatch(/^node \S+\/bin\/plat\.js --help$/);
  });
});
