import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { noSessionBus, openCredentialStore, type StoredCredential } from '../../src/auth/credential-store.js';
import type { Keytar } from '../../src/auth/keychain-credential-store.js';
import { ConfigError } from '../../src/config/errors.js';
import { fakeKeytar, keychainItem } from '../helpers/keytar.js';

const SECRET = 'plat_live_0123456789abcdefghijklmnopqrstuvwxyzAB';
const cred: StoredCredential = { apiKey: SECRET };

let dir: string;
let warnings: string[];
const warn = (m: string) => warnings.push(m);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'plat-creds-'));
  warnings = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = () => join(dir, 'credentials.json');
const mode = (p: string) => statSync(p).mode & 0o777;

describe('the file store', () => {
  it('is used when forced, with no warning, and keeps the file 0600', async () => {
    const store = await openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });
    expect(store).toMatchObject({ kind: 'file', location: file() });
    await expect(store.get('default')).resolves.toBeUndefined();
    await store.set('default', cred);
    await store.set('other', { accessToken: 'at', refreshToken: 'rt', expiresAt: '2026-01-01T00:00:00.000Z' });
    expect(mode(file())).toBe(0o600);
    await expect(store.get('default')).resolves.toEqual(cred);
    await store.delete('default');
    await expect(store.get('default')).resolves.toBeUndefined();
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual({
      version: 1,
      profiles: { other: { accessToken: 'at', refreshToken: 'rt', expiresAt: '2026-01-01T00:00:00.000Z' } },
    });
    expect(warnings).toEqual([]);
  });

  it('is forced by PLAT_CREDENTIAL_STORE=file', async () => {
    const { keytar } = fakeKeytar();
    const store = await openCredentialStore({
      configDir: dir,
      warn,
      env: { PLAT_CREDENTIAL_STORE: 'file' },
      loadKeytar: async () => keytar,
    });
    expect(store.kind).toBe('file');
    expect(warnings).toEqual([]);
  });

  it('keeps a profile called __proto__ as data', async () => {
    const store = await openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });
    await store.set('__proto__', cred);
    await expect(store.get('__proto__')).resolves.toEqual(cred);
    await expect(store.get('toString')).resolves.toBeUndefined();
  });

  it('reports a damaged file by name without quoting it', async () => {
    writeFileSync(file(), `{"profiles": {"default": {"apiKey": "${SECRET}"`, { mode: 0o600 });
    const store = await openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });
    const err = await store.get('default').catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe(`${file()} is not valid JSON; remove it and sign in again`);
  });
});

describe('noSessionBus: whether a Secret Service can answer, told before loading keytar', () => {
  it('on Linux, names what is missing when no D-Bus session bus can be reached', () => {
    expect(noSessionBus({}, 'linux')).toMatch(/^no D-Bus session bus for the Secret Service: /);
    expect(noSessionBus({ XDG_RUNTIME_DIR: dir }, 'linux')).toMatch(/^no D-Bus session bus/);
  });

  it('leaves it to keytar when a bus may be there: named, at $XDG_RUNTIME_DIR/bus, or through X11; and elsewhere', () => {
    expect(noSessionBus({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' }, 'linux')).toBeUndefined();
    expect(noSessionBus({ DISPLAY: ':0' }, 'linux')).toBeUndefined();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bus'), '');
    expect(noSessionBus({ XDG_RUNTIME_DIR: dir }, 'linux')).toBeUndefined();
    expect(noSessionBus({}, 'darwin')).toBeUndefined();
    expect(noSessionBus({}, 'win32')).toBeUndefined();
  });
});

describe('falling back from the keychain', () => {
  it('uses the file when keytar cannot be loaded, saying so when a credential first goes there', async () => {
    const loadKeytar = async (): Promise<Keytar> => {
      throw new Error("Cannot find module 'keytar'");
    };
    const store = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar });
    expect(store).toMatchObject({ kind: 'file', location: file() });
    expect(warnings).toEqual([]);
    await store.set('default', cred);
    expect(mode(file())).toBe(0o600);
    expect(warnings).toEqual([
      `no usable OS keychain (loading keytar failed: Cannot find module 'keytar'); credentials are stored in ${file()}, readable only by you`,
    ]);

    // Reading it back, replacing it (a token refresh) or storing another: no second warning in this process.
    const again = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar });
    await expect(again.get('default')).resolves.toEqual(cred);
    await again.set('default', { ...cred, scopes: ['users:write'] });
    await again.set('other', cred);
    expect(warnings).toHaveLength(1);
  });

  it('warns when a credential first goes to the file, not when a later command stores one (once per config directory)', async () => {
    const broken = async (): Promise<Keytar> => {
      throw new Error('no keychain here');
    };
    // Each command is a process of its own: a fresh module, as plat starts with.
    const command = async () => {
      vi.resetModules();
      const { openCredentialStore: open } = await import('../../src/auth/credential-store.js');
      return open({ configDir: dir, warn, env: {}, loadKeytar: broken });
    };
    await (await command()).set('default', cred);
    expect(warnings).toHaveLength(1);
    await (await command()).set('default', { ...cred, scopes: ['users:write'] });
    expect(warnings).toHaveLength(1);
    await (await command()).set('other', cred);
    expect(warnings).toHaveLength(1);
    expect(readFileSync(`${file()}.warned`, 'utf8')).toBe(`${warnings[0]}\n`);
  });

  it('gives up on a keychain that does not answer within the timeout', async () => {
    const hanging: Keytar = {
      getPassword: () => new Promise(() => {}),
      setPassword: () => new Promise(() => {}),
      deletePassword: () => new Promise(() => {}),
    };
    const started = Date.now();
    const store = await openCredentialStore({
      configDir: dir,
      warn,
      env: {},
      timeoutMs: 50,
      loadKeytar: async () => hanging,
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(store.kind).toBe('file');
    await store.set('default', cred);
    expect(warnings[0]).toContain('keychain probe timed out after 50 ms');
  });

  it('switches to the file when the keychain fails after the probe, and says so once', async () => {
    const fake = fakeKeytar();
    const store = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar: async () => fake.keytar });
    expect(store).toMatchObject({ kind: 'keychain', location: 'OS keychain (service plat)' });
    await store.set('default', cred);
    expect(fake.items.get('plat/default')).toBe(JSON.stringify(cred));
    await expect(store.get('default')).resolves.toEqual(cred);

    fake.state.broken = true;
    await store.set('default', cred);
    expect(store).toMatchObject({ kind: 'file', location: file() });
    await expect(store.get('default')).resolves.toEqual(cred);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(file());
    expect(warnings.join('\n')).not.toContain(SECRET);
  });

  it('removes a leftover file credential on delete while the keychain works', async () => {
    const fake = fakeKeytar();
    const fileStore = await openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });
    await fileStore.set('default', cred);
    const store = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar: async () => fake.keytar });
    await store.set('default', cred);
    await store.delete('default');
    expect(fake.items.size).toBe(0);
    await expect(fileStore.get('default')).resolves.toBeUndefined();
  });

  it('moves a credential stored in the file (when no keychain worked) into a keychain that works now', async () => {
    const fileStore = await openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });
    await fileStore.set('default', cred);
    await fileStore.set('other', { apiKey: 'plat_live_other' });
    const fake = fakeKeytar();
    const store = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar: async () => fake.keytar });
    await expect(store.get('default')).resolves.toEqual(cred);
    expect(store).toMatchObject({ kind: 'keychain', location: 'OS keychain (service plat)' });
    expect(fake.items.get('plat/default')).toBe(JSON.stringify(cred));
    await expect(fileStore.get('default')).resolves.toBeUndefined();
    // Only what was read moved; nothing said about it.
    await expect(fileStore.get('other')).resolves.toEqual({ apiKey: 'plat_live_other' });
    expect(warnings).toEqual([]);
  });

  it('two commands moving the same credential at once keep the newer tokens', async () => {
    const fileStore = await openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });
    const older = { accessToken: 'at-older', refreshToken: 'rt-older' };
    const newer = { accessToken: 'at-newer', refreshToken: 'rt-newer' };
    await fileStore.set('default', older);
    const fake = fakeKeytar();
    // The first command's keychain writes are slow; the second reads, then refreshes (stores newer tokens).
    const slow: Keytar = {
      ...fake.keytar,
      setPassword: async (s, a, p) => {
        await new Promise((r) => setTimeout(r, 150));
        return fake.keytar.setPassword(s, a, p);
      },
    };
    const first = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar: async () => slow });
    const second = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar: async () => fake.keytar });
    const [read1, read2] = await Promise.all([
      first.get('default'),
      second.get('default').then(async (c) => {
        await second.set('default', newer);
        return c;
      }),
    ]);
    expect([read1, read2]).toEqual([older, older]);
    expect(JSON.parse(fake.items.get('plat/default') as string)).toEqual(newer);
    await expect(fileStore.get('default')).resolves.toBeUndefined();
    await expect(second.get('default')).resolves.toEqual(newer);
  });

  it('keeps a credential in the file, and reads it there, when the keychain fails while it is moved', async () => {
    const fileStore = await openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });
    await fileStore.set('default', cred);
    const fake = fakeKeytar();
    const store = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar: async () => fake.keytar });
    const breakOnWrite: Keytar['setPassword'] = async () => {
      fake.state.broken = true;
      throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
    };
    fake.keytar.setPassword = breakOnWrite;
    await expect(store.get('default')).resolves.toEqual(cred);
    expect(store).toMatchObject({ kind: 'file', location: file() });
    await expect(fileStore.get('default')).resolves.toEqual(cred);
  });

  it('storing in the keychain removes the file copy, so an old credential cannot come back', async () => {
    const fileStore = await openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });
    await fileStore.set('default', { apiKey: 'plat_live_old' });
    const fake = fakeKeytar();
    const store = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar: async () => fake.keytar });
    await store.set('default', cred);
    await expect(fileStore.get('default')).resolves.toBeUndefined();
    fake.items.clear();
    await expect(store.get('default')).resolves.toBeUndefined();
  });

  describe('when the keychain failed while a command ran, the later copy wins the next time', () => {
    const spent = {
      accessToken: 'at-1',
      refreshToken: 'rt-1',
      expiresAt: '2026-01-01T01:00:00.000Z',
      clientId: 'plat-cli',
    };
    const rotated = { ...spent, accessToken: 'at-2', refreshToken: 'rt-2', expiresAt: '2026-01-01T02:00:00.000Z' };
    const open = (fake: ReturnType<typeof fakeKeytar>) =>
      openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar: async () => fake.keytar });
    const inKeychain = (fake: ReturnType<typeof fakeKeytar>) => keychainItem(fake, 'default');
    const fileStore = () => openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });

    it('a refresh saved in the file while the keychain kept the spent tokens: the rotated ones, moved in', async () => {
      const fake = fakeKeytar();
      const run1 = await open(fake);
      await run1.set('default', spent);
      // The keychain fails mid-run: the refresh's rotated tokens go to the file; the keychain keeps the spent ones.
      fake.state.broken = true;
      await run1.set('default', rotated);
      expect(run1.kind).toBe('file');
      expect(inKeychain(fake)).toEqual(spent);

      fake.state.broken = false;
      const run2 = await open(fake);
      await expect(run2.get('default')).resolves.toEqual(rotated);
      expect(run2.kind).toBe('keychain');
      expect(inKeychain(fake)).toEqual(rotated);
      await expect((await fileStore()).get('default')).resolves.toBeUndefined();
      // Settled once: the next read finds one copy.
      await expect((await open(fake)).get('default')).resolves.toEqual(rotated);
    });

    it("keeps the keychain's tokens when they expire later than the file's (a copy left behind)", async () => {
      await (await fileStore()).set('default', spent);
      const fake = fakeKeytar();
      fake.items.set('plat/default', JSON.stringify(rotated));
      await expect((await open(fake)).get('default')).resolves.toEqual(rotated);
      expect(inKeychain(fake)).toEqual(rotated);
      await expect((await fileStore()).get('default')).resolves.toBeUndefined();
    });

    it("an API key (no expiry): the file's, written after the keychain's by the command whose keychain failed", async () => {
      const fake = fakeKeytar();
      const run1 = await open(fake);
      await run1.set('default', { apiKey: 'plat_live_before' });
      fake.state.broken = true;
      await run1.set('default', { apiKey: 'plat_live_after' });
      fake.state.broken = false;
      await expect((await open(fake)).get('default')).resolves.toEqual({ apiKey: 'plat_live_after' });
      expect(inKeychain(fake)).toEqual({ apiKey: 'plat_live_after' });
      await expect((await fileStore()).get('default')).resolves.toBeUndefined();
    });

    it('the keychain failing again while they are settled: the later copy still, from the file', async () => {
      await (await fileStore()).set('default', rotated);
      const fake = fakeKeytar();
      fake.items.set('plat/default', JSON.stringify(spent));
      const store = await open(fake);
      fake.keytar.setPassword = async () => {
        throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
      };
      await expect(store.get('default')).resolves.toEqual(rotated);
      expect(store.kind).toBe('file');
      await expect((await fileStore()).get('default')).resolves.toEqual(rotated);
    });
  });

  it('does not touch the file when the keychain works', async () => {
    const fake = fakeKeytar();
    mkdirSync(dir, { recursive: true });
    const store = await openCredentialStore({ configDir: dir, warn, env: {}, loadKeytar: async () => fake.keytar });
    await store.set('default', cred);
    await store.delete('other');
    expect(() => statSync(file())).toThrow();
  });
});

describe('the file store under concurrent writers', () => {
  const accounts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

  it('keeps every account when many sets of different accounts run at once', async () => {
    const store = await openCredentialStore({ configDir: dir, warn, forceFile: true, env: {} });
    const names = accounts('prod-', 20).flatMap((n) => [n, `${n}:sandbox`]);
    await Promise.all(names.map((n) => store.set(n, { apiKey: `key-${n}` })));
    const saved = JSON.parse(readFileSync(file(), 'utf8')).profiles;
    expect(Object.keys(saved).sort()).toEqual([...names].sort());
    expect(existsSync(`${file()}.lock`)).toBe(false);
  });

  it('keeps every account when two processes write at once (one lock file, <file>.lock)', async () => {
    // The store as it is in src, bundled for plain node.
    const bundle = join(dir, 'store.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, '../../src/auth/file-credential-store.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
    });
    const script = (prefix: string) =>
      `import { FileCredentialStore } from ${JSON.stringify(bundle)};
       const store = new FileCredentialStore(${JSON.stringify(file())});
       const names = Array.from({ length: 25 }, (_, i) => ${JSON.stringify(prefix)} + i);
       await Promise.all(names.map((n) => store.set(n, { apiKey: 'key-' + n })));`;
    const run = (prefix: string) =>
      new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script(prefix)], { stdio: 'inherit' });
        child.on('error', reject);
        child.on('exit', resolve);
      });
    expect(await Promise.all([run('prod-'), run('prod:sandbox-')])).toEqual([0, 0]);
    const saved = JSON.parse(readFileSync(file(), 'utf8')).profiles;
    expect(Object.keys(saved).sort()).toEqual([...accounts('prod-', 25), ...accounts('prod:sandbox-', 25)].sort());
    expect(existsSync(`${file()}.lock`)).toBe(false);
  });
});
