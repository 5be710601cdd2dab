import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld, type RunOptions } from '../helpers/cli.js';
import { fakeKeytar, keychainItem } from '../helpers/keytar.js';
import { person, type SignInServer, signInServer, storedCredentials } from '../helpers/sign-in.js';

let s: SignInServer;
let w: CliWorld;
let keychain: ReturnType<typeof fakeKeytar>;
beforeAll(async () => {
  s = await signInServer();
});
afterAll(() => s.close());
beforeEach(() => {
  w = cliWorld();
  keychain = fakeKeytar();
});
afterEach(() => w.cleanup());

/** `plat …` with the OS keychain standing in: credentials go there while it works. */
const plat = (argv: string[], opts: RunOptions = {}) =>
  w.runCli(argv, { ...opts, deps: { credentialStore: { loadKeytar: async () => keychain.keytar } } });

/** Whether the server still accepts a refresh token (a reused one ends the whole session). */
async function refreshes(refreshToken: string): Promise<boolean> {
  const r = await fetch(`${s.url}/v2/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'plat-cli' }),
  });
  return r.status === 200;
}

describe('a token refresh while the OS keychain fails', () => {
  it('the next command, with the keychain back, uses the rotated tokens, not the spent ones it kept', async () => {
    expect((await plat(['profiles', 'add', 'dev', '--base-url', s.url, '--use'])).code).toBe(0);
    const p = person();
    const login = await plat(['login', '--no-browser'], { onStderr: p.onStderr });
    expect(login.code, login.stderr).toBe(0);
    const spent = keychainItem(keychain, 'dev') as Record<string, string>;
    expect(spent.expiresAt).toBe('2026-01-01T01:00:00.000Z');

    // An hour later the token is refreshed, and the keychain fails as the rotated tokens are saved: they go to the
    // file, and the keychain still holds the old ones, whose refresh token is now spent.
    w.clock.advance(3600_000);
    const setPassword = keychain.keytar.setPassword;
    keychain.keytar.setPassword = async () => {
      keychain.state.broken = true;
      throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
    };
    const during = await plat(['users', 'list', '-o', 'ids']);
    expect(during).toMatchObject({
      code: 0,
      stdout: `${s.ownerId}\n`,
      stderr:
        'plat: warning: no usable OS keychain (keychain write failed: Cannot autolaunch D-Bus without X11 $DISPLAY); ' +
        'credentials are stored in <tmp>/config/credentials.json, readable only by you\n',
    });
    const rotated = storedCredentials(w.configDir).dev as Record<string, string>;
    expect(rotated.expiresAt).toBe('2026-01-01T02:00:00.000Z');
    expect(keychainItem(keychain, 'dev')).toEqual(spent);

    // The keychain works again. The spent copy must not be presented: the server would take it as a reused refresh
    // token and end the session.
    keychain.keytar.setPassword = setPassword;
    keychain.state.broken = false;
    const after = await plat(['--verbose', 'users', 'list', '-o', 'ids']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toBe(`${s.ownerId}\n`);
    expect(after.stderr).not.toContain('/auth/token'); // the rotated token is still fresh: no refresh at all
    expect(keychainItem(keychain, 'dev')).toEqual(rotated);
    expect(storedCredentials(w.configDir).dev).toBeUndefined();
    expect(await refreshes(rotated.refreshToken as string)).toBe(true); // the session lives on
  });
});
