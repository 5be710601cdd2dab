import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emitted, emitSources } from '../helpers/emit.js';

/**
 * Round-trips a credential through openCredentialStore in a fresh process and reports what happened, including
 * what keytar itself reads back (proof that the secret sits in the keyring, not in a file).
 */
const SCRIPT = `
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
const { openCredentialStore } = await import('./src/auth/credential-store.js');
const configDir = process.argv[2];
const warnings = [];
const store = await openCredentialStore({ configDir, warn: (m) => warnings.push(m), env: process.env });
await store.set('ci-profile', { apiKey: 'plat_live_keyringsecret', scopes: ['users:read'] });
const readBack = await store.get('ci-profile');
let inKeyring = null;
try {
  const keytar = (await import('keytar')).default;
  inKeyring = await keytar.getPassword('plat', 'ci-profile');
} catch {}
await store.delete('ci-profile');
const afterDelete = (await store.get('ci-profile')) ?? null;
const file = join(configDir, 'credentials.json');
const fileMode = existsSync(file) ? (statSync(file).mode & 0o777).toString(8) : null;
console.log(JSON.stringify({ kind: store.kind, location: store.location, readBack, inKeyring, afterDelete, warnings, fileMode }));
`;

/**
 * Two commands on one keyring. `during`: tokens are stored in the keyring, then the keyring fails (keytar made to
 * fail from then on, as when its daemon dies) while a refresh saves the rotated tokens, which go to the file. `after`:
 * a fresh process, the keyring answering again, reads the credential through plat's store and reports what it got
 * and what the keyring and the file hold then.
 */
const MID_RUN_SCRIPT = `
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const { openCredentialStore } = await import('./src/auth/credential-store.js');
const keytar = (await import('keytar')).default;
const [configDir, phase] = process.argv.slice(2);
const spent = { accessToken: 'at-spent', refreshToken: 'rt-spent', expiresAt: '2026-01-01T01:00:00.000Z' };
const rotated = { accessToken: 'at-rotated', refreshToken: 'rt-rotated', expiresAt: '2026-01-01T02:00:00.000Z' };
const inKeyring = async () => JSON.parse((await keytar.getPassword('plat', 'ci-refresh')) ?? 'null');
const file = join(configDir, 'credentials.json');
const inFile = () => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).profiles['ci-refresh'] ?? null) : null);
const warnings = [];
const warn = (m) => warnings.push(m);
if (phase === 'during') {
  let broken = false;
  const call = (name) => (...args) => (broken ? Promise.reject(new Error('the keyring went away')) : keytar[name](...args));
  const failing = { getPassword: call('getPassword'), setPassword: call('setPassword'), deletePassword: call('deletePassword') };
  const store = await openCredentialStore({ configDir, warn, env: process.env, loadKeytar: async () => failing });
  await store.set('ci-refresh', spent);
  broken = true;
  await store.set('ci-refresh', rotated);
  console.log(JSON.stringify({ kind: store.kind, inKeyring: await inKeyring(), inFile: inFile(), warnings: warnings.length }));
} else {
  const store = await openCredentialStore({ configDir, warn, env: process.env });
  const got = await store.get('ci-refresh');
  console.log(JSON.stringify({ kind: store.kind, got, inKeyring: await inKeyring(), inFile: inFile(), warnings: warnings.length }));
}
`;

/**
 * Runs `plat` commands one after the other (argv lists on the command line, as JSON) and prints what each did, for a
 * shell that runs it on the session bus of a real keyring.
 */
const PLAT_STEPS_SCRIPT = `
import { spawnSync } from 'node:child_process';
const [bin, steps] = process.argv.slice(2);
const runs = JSON.parse(steps).map(({ argv, env }) => {
  const r = spawnSync('sh', [bin, ...argv], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { argv: argv.join(' '), code: r.status, stdout: r.stdout, stderr: r.stderr };
});
console.log(JSON.stringify(runs));
`;

describe('credential store against real keychains', () => {
  let emitted: Emitted;
  let home: string;
  beforeAll(() => {
    emitted = emitSources(['src/auth/credential-store.ts']);
    writeFileSync(join(emitted.dir, 'keyring.mjs'), SCRIPT);
    writeFileSync(join(emitted.dir, 'mid-run.mjs'), MID_RUN_SCRIPT);
    writeFileSync(join(emitted.dir, 'plat-steps.mjs'), PLAT_STEPS_SCRIPT);
    home = mkdtempSync(join(tmpdir(), 'plat-keyring-'));
  }, 120_000);
  afterAll(() => {
    emitted?.remove();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  /** A clean environment: a private HOME and no session bus or display inherited from whoever runs the tests. */
  function isolatedEnv(name: string): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'PLAT_CREDENTIAL_STORE'])
      delete env[key];
    const base = join(home, name);
    mkdirSync(join(base, 'run'), { recursive: true, mode: 0o700 });
    return { ...env, HOME: base, XDG_DATA_HOME: join(base, 'data'), XDG_RUNTIME_DIR: join(base, 'run') };
  }

  function report(stdout: string) {
    return JSON.parse(stdout.trim().split('\n').at(-1) as string);
  }

  it('stores in a real Secret Service (gnome-keyring under dbus-run-session)', () => {
    const env = isolatedEnv('with-keyring');
    const configDir = join(env.HOME as string, 'config');
    const script = join(emitted.dir, 'keyring.mjs');
    // The daemon creates and unlocks a login keyring with the password on stdin; then the script runs on that bus.
    const shell = `printf 'plat-test-password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$0" "$1" "$2"`;
    const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', shell, process.execPath, script, configDir], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`the keyring script failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    expect(report(r.stdout)).toEqual({
      kind: 'keychain',
      location: 'OS keychain (service plat)',
      readBack: { apiKey: 'plat_live_keyringsecret', scopes: ['users:read'] },
      inKeyring: JSON.stringify({ apiKey: 'plat_live_keyringsecret', scopes: ['users:read'] }),
      afterDelete: null,
      warnings: [],
      fileMode: null,
    });
  });

  it('after a refresh saved in the file while the keyring failed, the next command gets the rotated tokens', () => {
    const env = isolatedEnv('mid-run');
    const configDir = join(env.HOME as string, 'config');
    const script = join(emitted.dir, 'mid-run.mjs');
    const shell =
      `printf 'plat-test-password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null && ` +
      `"$0" "$1" "$2" during && "$0" "$1" "$2" after`;
    const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', shell, process.execPath, script, configDir], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`the keyring script failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    const [during, after] = r.stdout
      .trim()
      .split('\n')
      .slice(-2)
      .map((line) => JSON.parse(line));
    const spent = { accessToken: 'at-spent', refreshToken: 'rt-spent', expiresAt: '2026-01-01T01:00:00.000Z' };
    const rotated = { accessToken: 'at-rotated', refreshToken: 'rt-rotated', expiresAt: '2026-01-01T02:00:00.000Z' };
    // The fault, as it happens: the rotated tokens in the file, the spent ones left in the keyring.
    expect(during).toEqual({ kind: 'file', inKeyring: spent, inFile: rotated, warnings: 1 });
    // The next command: the rotated tokens, now in the keyring only; the spent copy is gone.
    expect(after).toEqual({ kind: 'keychain', got: rotated, inKeyring: rotated, inFile: null, warnings: 0 });
  });

  it('plat, with the keyring back, uses the API key the file got after the keyring’s (not the stale one)', () => {
    const env: NodeJS.ProcessEnv = { ...isolatedEnv('plat-stale-keyring'), NO_COLOR: '1' };
    const file = join(env.HOME as string, '.config/plat/credentials.json');
    // What a keyring failing during `local reset` and the next bootstrap leaves, made with the real binary: the
    // keyring keeps the first platform's key, and the new platform's key goes to the file. (PLAT_CREDENTIAL_STORE=file
    // stands for the failing keyring: those commands do not touch it.)
    const steps = [
      { argv: ['users', 'list', '-o', 'ids'], env: {} },
      { argv: ['local', 'reset', '--yes'], env: { PLAT_CREDENTIAL_STORE: 'file' } },
      { argv: ['users', 'list', '-o', 'ids'], env: { PLAT_CREDENTIAL_STORE: 'file' } },
      // The keyring answers again.
      { argv: ['users', 'list', '-o', 'ids'], env: {} },
      { argv: ['auth', 'status', '--json'], env: {} },
    ];
    const shell = `printf 'plat-test-password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$0" "$1" "$2" "$3"`;
    const bin = fileURLToPath(new URL('../../bin/plat.js', import.meta.url));
    const r = spawnSync(
      'dbus-run-session',
      ['--', 'sh', '-c', shell, process.execPath, join(emitted.dir, 'plat-steps.mjs'), bin, JSON.stringify(steps)],
      { env, encoding: 'utf8', timeout: 120_000 },
    );
    if (r.status !== 0) throw new Error(`the steps failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    const [first, reset, second, after, status] = report(r.stdout);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^user_\w+\n$/);
    expect(first.stderr).toContain('Its API key is stored in OS keychain (service plat).');
    expect(reset.code, reset.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`Its API key is stored in ${file}.`);
    // The new platform's key, from the file, now in the keyring; the file keeps no copy.
    expect(after).toMatchObject({ code: 0, stdout: second.stdout, stderr: '' });
    expect(JSON.parse(status.stdout)).toMatchObject({
      credential: { source: 'store', why: 'stored for "local" in OS keychain (service plat)' },
      store: { kind: 'keychain' },
    });
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles).toEqual({});
  });

  it('falls back to a 0600 file, with one warning naming it, where no Secret Service runs', () => {
    // A session bus named but not there: keytar loads, and libsecret itself fails to reach the Secret Service (with
    // no bus named at all, plat would not load keytar: the next test).
    const env: NodeJS.ProcessEnv = {
      ...isolatedEnv('without-keyring'),
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus',
    };
    const configDir = join(env.HOME as string, 'config');
    const r = spawnSync(process.execPath, [join(emitted.dir, 'keyring.mjs'), configDir], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (r.status !== 0) throw new Error(`the keyring script failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    const out = report(r.stdout);
    const file = join(configDir, 'credentials.json');
    expect(out).toMatchObject({
      kind: 'file',
      location: file,
      readBack: { apiKey: 'plat_live_keyringsecret', scopes: ['users:read'] },
      afterDelete: null,
      fileMode: '600',
    });
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toMatch(/^no usable OS keychain \(keychain probe failed: .+\); credentials are stored in /);
    expect(out.warnings[0]).toContain(file);
    expect(out.warnings[0]).not.toContain('keyringsecret');
  });

  it('plat, where no Secret Service runs, warns when the credential goes to the file, not at each later command', () => {
    const env: NodeJS.ProcessEnv = { ...isolatedEnv('plat-without-keyring'), NO_COLOR: '1' };
    const plat = (...argv: string[]) =>
      spawnSync('sh', [fileURLToPath(new URL('../../bin/plat.js', import.meta.url)), ...argv], {
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const file = join(env.HOME as string, '.config/plat/credentials.json');
    const warning =
      /^plat: warning: no usable OS keychain \(.+\); credentials are stored in (\S+), readable only by you$/m;
    // The first command bootstraps the embedded platform and stores its key: the one warning, naming the file.
    const first = plat('users', 'list', '-o', 'ids');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr.match(new RegExp(warning, 'gm'))).toHaveLength(1);
    expect(warning.exec(first.stderr)?.[1]).toBe(file);
    // Told from the environment, without loading keytar (no session bus here: no DBUS_SESSION_BUS_ADDRESS, DISPLAY
    // or $XDG_RUNTIME_DIR/bus).
    expect(first.stderr).toContain('(no D-Bus session bus for the Secret Service: ');
    for (const argv of [
      ['users', 'list', '-o', 'ids'],
      ['projects', 'list'],
    ]) {
      const r = plat(...argv);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr, argv.join(' ')).toBe('');
    }
    const status = plat('auth', 'status', '--json');
    expect(JSON.parse(status.stdout)).toMatchObject({
      credential: { source: 'store' },
      store: { kind: 'file', location: file },
    });
  });
});
