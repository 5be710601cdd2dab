import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/contract/permissions.js';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import {
  authorizeUrlIn,
  OWNER_EMAIL,
  person,
  type SignInServer,
  signInServer,
  storedCredentials,
} from '../helpers/sign-in.js';

let s: SignInServer;
let w: CliWorld;
beforeAll(async () => {
  s = await signInServer();
});
afterAll(() => s.close());
beforeEach(async () => {
  w = cliWorld();
  expect((await w.runCli(['profiles', 'add', 'dev', '--base-url', s.url, '--use'])).code).toBe(0);
});
afterEach(() => w.cleanup());

/** `plat login …` with a person signing in at whatever it prints. */
async function login(argv: string[], opts: Parameters<typeof person>[0] & { env?: Record<string, string> } = {}) {
  const p = person(opts);
  const r = await w.runCli(['login', ...argv], { onStderr: p.onStderr, env: opts.env });
  return { ...r, visit: await p.visit() };
}

describe('plat login in the browser (code flow with PKCE, loopback redirect)', () => {
  it('prints the URL with --no-browser, receives the code on 127.0.0.1 and stores the tokens', async () => {
    const r = await login(['--no-browser']);
    expect(r.code, r.stderr).toBe(0);
    const url = new URL(authorizeUrlIn(r.stderr) as string);
    expect(`${url.origin}${url.pathname}`).toBe(`${s.url}/v2/auth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'plat-cli',
      response_type: 'code',
      redirect_uri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(r.visit).toMatchObject({ status: 200 });
    expect(r.visit?.text).toContain('plat is signed in. You can close this window.');
    expect(r.stdout).toBe(
      'PROFILE\tENDPOINT\tUSER\tORGANIZATION\tSCOPES\tEXPIRES\tSTORE\n' +
        `dev\t${s.url}/v2\t${OWNER_EMAIL}\tAcme (${s.orgId})\t${PERMISSIONS.length}\t2026-01-01T01:00:00.000Z\t<tmp>/config/credentials.json\n`,
    );
    expect(r.stderr).toContain(`Signed in to ${s.url}/v2 as ${OWNER_EMAIL} (organization ${s.orgId})`);
    const stored = storedCredentials(w.configDir).dev as Record<string, unknown>;
    expect(stored).toEqual({
      accessToken: expect.stringMatching(/^eyJ/),
      refreshToken: expect.any(String),
      expiresAt: '2026-01-01T01:00:00.000Z',
      scopes: expect.arrayContaining(['users:read', 'projects:write']),
      clientId: 'plat-cli',
      issuer: `${s.url}/v2/auth`,
    });
    // No secret was printed: not the tokens, not the code the browser carried back.
    for (const secret of [stored.accessToken, stored.refreshToken, r.visit?.code] as string[]) {
      expect(r.raw.stdout + r.raw.stderr).not.toContain(secret);
    }
    expect(readFileSync(join(w.configDir, 'config.json'), 'utf8')).not.toContain(stored.refreshToken as string);

    // The commands now act with the token.
    const users = await w.runCli(['users', 'list', '-o', 'ids']);
    expect(users).toMatchObject({ code: 0, stdout: `${s.ownerId}\n` });
    const me = await w.runCli(['whoami', '--json']);
    expect(JSON.parse(me.stdout)).toMatchObject({
      type: 'user',
      user: { email: OWNER_EMAIL },
      organization: { id: s.orgId },
      sessionId: expect.stringMatching(/^sess_/),
    });
  });

  it('ignores a callback with another state, then takes the right one', async () => {
    const strays: number[] = [];
    const r = await login(['--no-browser'], {
      before: async (url) => {
        const redirect = new URL(url).searchParams.get('redirect_uri') as string;
        strays.push((await fetch(`${redirect}?code=forged&state=wrong`)).status);
        strays.push((await fetch(`${redirect}?code=forged`)).status);
        strays.push((await fetch(new URL('/favicon.ico', redirect))).status);
      },
    });
    expect(strays).toEqual([400, 400, 404]);
    expect(r.code, r.stderr).toBe(0);
  });

  it('asks for the scopes given, and refuses unknown ones before anything (7)', async () => {
    const r = await login(['--no-browser', '--scopes', 'users:read,projects:read', 'events:read']);
    expect(r.code, r.stderr).toBe(0);
    expect(new URL(authorizeUrlIn(r.stderr) as string).searchParams.get('scope')).toBe(
      'users:read projects:read events:read',
    );
    expect(new Set(storedCredentials(w.configDir).dev?.scopes)).toEqual(
      new Set(['users:read', 'projects:read', 'events:read']),
    );
    expect((await w.runCli(['users', 'list', '-o', 'ids'])).code).toBe(0);
    expect((await w.runCli(['users', 'invite', 'x@acme.test'])).code).toBe(4);
    const bad = await w.runCli(['login', '--scopes', 'users:read,users:fly']);
    expect(bad.code).toBe(7);
    expect(bad.stderr).toMatch(/^plat: unknown scope users:fly; scopes are permissions: org:read, /);
  });

  it('gives up after --timeout (3) and stores nothing', async () => {
    const r = await w.runCli(['login', '--no-browser', '--timeout', '1']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('plat: no sign-in came back within 1 s; nothing was stored\n');
    expect(w.configFiles()).not.toContain('accessToken');
  });

  it('keeps waiting after a wrong password on the page, until the timeout', async () => {
    const p = person({ password: 'not the password at all' });
    const r = await w.runCli(['login', '--no-browser', '--timeout', '2'], { onStderr: p.onStderr });
    expect((await p.visit())?.status).toBe(401); // the login page said so, and the CLI heard nothing
    expect(r.code).toBe(3);
  });

  it('opens the browser when there is a display, through the desktop opener', async () => {
    const opened: string[] = [];
    const p = person();
    const openBrowser = async (url: string) => {
      opened.push(url);
      p.onStderr(`  ${url}\n`);
      return true;
    };
    const r = await w.runCli(['login'], { env: { DISPLAY: ':0' }, deps: { openBrowser } });
    expect(r.code, r.stderr).toBe(0);
    expect(opened).toHaveLength(1);
    expect(r.stderr).toContain('Opened the sign-in page in your browser. If it did not appear, open this URL:\n');
    expect(r.stderr).toContain(`  ${opened[0]}\n`);
  });

  it('prints the URL when the opener cannot start', async () => {
    const p = person();
    const openBrowser = async () => false;
    const r = await w.runCli(['login'], { env: { DISPLAY: ':0' }, deps: { openBrowser }, onStderr: p.onStderr });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Could not start a browser\. Open this URL in a browser to sign in:\n {2}http/);
  });
});

describe('plat login with a code (device grant, RFC 8628)', () => {
  it('--device prints the page and the code, polls, and stores the tokens', async () => {
    const r = await login(['--device']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.visit?.text).toContain('Device connected');
    expect(r.stderr).toMatch(
      new RegExp(
        `^To sign in, open ${s.url}/v2/auth/device and enter the code ([B-Z]{4}-[B-Z]{4})\\n` +
          `  \\(or open ${s.url}/v2/auth/device\\?user_code=\\1\\)\\n` +
          'Waiting for the sign-in to be approved \\(up to 5 min; Ctrl-C cancels\\)…\\n',
      ),
    );
    expect(storedCredentials(w.configDir).dev).toMatchObject({
      clientId: 'plat-cli',
      refreshToken: expect.any(String),
    });
    expect((await w.runCli(['users', 'list', '-o', 'ids'])).stdout).toBe(`${s.ownerId}\n`);
  });

  it('is used by itself without a display, and over SSH', async () => {
    const plain = await login([]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(/^No browser can be opened here: there is no display \(DISPLAY and WAYLAND_DISPLAY/);
    const ssh = await login([], { env: { DISPLAY: ':0', SSH_CONNECTION: '10.0.0.1 5555 10.0.0.2 22' } });
    expect(ssh.code, ssh.stderr).toBe(0);
    expect(ssh.stderr).toMatch(/^No browser can be opened here: this is an SSH session\. Signing in with a code/);
  });
});

describe('where plat login signs in', () => {
  it('not to the embedded profile: it has its local key (2); with a URL, under the profile for that URL', async () => {
    const r = await w.runCli(['--profile', 'local', 'login']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('plat: profile "local" is the embedded platform: commands use its local API key');
    expect(r.stderr).toContain('give its URL: plat login --base-url http://127.0.0.1:8080\n');
    const p = person();
    const named = await w.runCli(['--profile', 'local', 'login', '--base-url', s.url, '--no-browser'], {
      onStderr: p.onStderr,
    });
    expect(named.code, named.stderr).toBe(0);
    // dev, the current profile already, stays current: nothing to say about switching.
    expect(named.stderr).toMatch(
      new RegExp(`under profile "dev" \\(the profile for ${s.url}/v2\\); the tokens are stored in [^\\n]+\\.\\n$`),
    );
    expect(JSON.parse(readFileSync(join(w.configDir, 'config.json'), 'utf8'))).toEqual({
      currentProfile: 'dev',
      profiles: { dev: { baseUrl: `${s.url}/v2` } },
    });
  });

  it('not to another URL than the profile’s (2); a new profile is created with it', async () => {
    const other = await w.runCli(['login', '--base-url', 'http://127.0.0.1:9']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`profile "dev" is for ${s.url}/v2, but the endpoint is http://127.0.0.1:9/v2`);
    const created = await (async () => {
      const p = person();
      return w.runCli(['--profile', 'staging', 'login', '--base-url', s.url, '--no-browser'], {
        onStderr: p.onStderr,
      });
    })();
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain(`Added profile "staging" for ${s.url}/v2`);
    const profiles = await w.runCli(['profiles', 'list']);
    expect(profiles.stdout).toContain(`\tstaging\tremote\t${s.url}/v2\t`);
    expect(profiles.stdout).toMatch(/^\*\tdev\t/m); // still the current one
    expect((await w.runCli(['--profile', 'staging', 'whoami', '-o', 'ids'])).stdout).toBe(`${s.ownerId}\n`);
  });

  it('waits for a server that is still starting: a refused connection is tried again', async () => {
    const port = await freePort();
    // The server starts on the refused port while plat waits to try again.
    let later: SignInServer | undefined;
    let waits = 0;
    const sleep = async () => {
      waits++;
      later ??= await signInServer({ port });
    };
    const p = person();
    try {
      const argv = ['--profile', 'starting', 'login', '--base-url', `http://127.0.0.1:${port}`, '--no-browser'];
      const r = await w.runCli(argv, { onStderr: p.onStderr, deps: { sleep } });
      expect(r.code, r.stderr).toBe(0);
      expect(waits).toBe(1);
      expect(r.stderr).toContain(`Signed in to http://127.0.0.1:${port}/v2 as ${OWNER_EMAIL}`);
    } finally {
      await later?.close();
    }
  });

  it('a failed sign-in to a new profile leaves no profile behind', async () => {
    const closed = await freePort();
    const r = await w.runCli([
      '--profile',
      'nope',
      'login',
      '--base-url',
      `http://127.0.0.1:${closed}`,
      '--no-browser',
    ]);
    expect(r.code).toBe(9);
    expect(r.stderr).toBe(
      `plat: discovery at http://127.0.0.1:${closed}/v2/auth failed: the server could not be reached (ECONNREFUSED)\n`,
    );
    expect(readFileSync(join(w.configDir, 'config.json'), 'utf8')).not.toContain('nope');
  });
});
