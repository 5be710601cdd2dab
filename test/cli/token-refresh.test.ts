import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/auth/refresh-lock.js';
import { PERMISSIONS } from '../../src/contract/permissions.js';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import {
  OWNER_EMAIL,
  patchCredential,
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
  const p = person();
  const r = await w.runCli(['login', '--no-browser'], { onStderr: p.onStderr });
  expect(r.code, r.stderr).toBe(0);
});
afterEach(() => w.cleanup());

const stored = () => storedCredentials(w.configDir).dev as Record<string, any>;
const TOKEN = `${'→ POST '}`;

/** Whether the server still accepts a bearer token. */
async function works(token: string): Promise<boolean> {
  const r = await fetch(`${s.url}/v2/auth/whoami`, { headers: { Authorization: `Bearer ${token}` } });
  return r.status === 200;
}

describe('refreshing the access token', () => {
  it('refreshes when less than a minute is left, saves the rotated token, and goes on', async () => {
    const before = stored();
    w.clock.advance(3600_000 - 59_000); // 59 s left on the CLI's clock
    const r = await w.runCli(['--verbose', 'users', 'list', '-o', 'ids']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${s.ownerId}\n`);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toBe(`→ GET ${s.url}/v2/auth/.well-known/openid-configuration · 200 · Nms · request req_…`);
    expect(lines[1]).toBe(`${TOKEN}${s.url}/v2/auth/token · 200 · Nms · request req_…`);
    const after = stored();
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.expiresAt).toBe('2026-01-01T01:59:01.000Z');
    expect(after).toMatchObject({ clientId: 'plat-cli', issuer: before.issuer, scopes: before.scopes });
    expect(r.raw.stderr).not.toContain(after.refreshToken);
    // Not again while the new token is fresh; and the lock file is gone.
    const again = await w.runCli(['--verbose', 'users', 'list', '-o', 'ids']);
    expect(again.stderr).not.toContain('/auth/token');
    expect(readdirSync(w.configDir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('refreshes once after a 401 and sends the request again', async () => {
    patchCredential(w.configDir, 'dev', { accessToken: 'eyJ.not-a.token' });
    const r = await w.runCli(['--verbose', 'whoami', '-o', 'ids']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${s.ownerId}\n`);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^→ GET .*\/v2\/auth\/whoami · 401 · /);
    expect(lines[2]).toMatch(/^→ POST .*\/v2\/auth\/token · 200 · /);
    expect(lines[3]).toMatch(/^→ GET .*\/v2\/auth\/whoami · 200 · .* · attempt 2$/);
    expect(stored().accessToken).not.toBe('eyJ.not-a.token');
  });

  it('a refused refresh (session revoked elsewhere) is exit 3 with what to do', async () => {
    const { refreshToken } = stored();
    const revoked = await fetch(`${s.url}/v2/auth/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshToken, client_id: 'plat-cli' }),
    });
    expect(revoked.status).toBe(200);
    w.clock.advance(3600_000);
    const r = await w.runCli(['users', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^plat: refreshing the access token refused \(invalid_grant: .+\); the session has ended: sign in again with plat login\n$/,
    );
    expect(r.raw.stderr).not.toContain(refreshToken);
    const json = await w.runCli(['users', 'list', '--json']);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'authentication_failed', status: null });
  });

  it('without a refresh token, an expired token is exit 3', async () => {
    patchCredential(w.configDir, 'dev', { refreshToken: undefined });
    w.clock.advance(3600_000);
    const r = await w.runCli(['users', 'list']);
    expect(r).toMatchObject({
      code: 3,
      stderr: 'plat: the access token has expired and cannot be refreshed; sign in again with plat login\n',
    });
  });

  it('concurrent commands in one process share one refresh; the session survives', async () => {
    const before = stored().refreshToken;
    w.clock.advance(3600_000);
    const runs = await Promise.all(
      Array.from({ length: 6 }, () => w.runCli(['--verbose', 'users', 'list', '-o', 'ids'])),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(runs.filter((r) => r.stderr.includes('/auth/token')).length).toBe(1);
    expect(stored().refreshToken).not.toBe(before);
    expect(await works(stored().accessToken)).toBe(true);
  });

  it('waits for a refresh lock held by another process, then uses what it stored', async () => {
    w.clock.advance(3600_000);
    const lock = join(w.configDir, 'refresh-dev.lock');
    let finished = false;
    const holder = withFileLock(lock, async () => {
      await new Promise((r) => setTimeout(r, 300));
      // The other process refreshed meanwhile: a token valid until well after the CLI's clock.
      patchCredential(w.configDir, 'dev', { expiresAt: '2026-01-01T03:00:00.000Z' });
      finished = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(lock)).toBe(true);
    const r = await w.runCli(['--verbose', 'users', 'list', '-o', 'ids']);
    await holder;
    expect(finished).toBe(true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('/auth/token'); // it used the stored token instead of refreshing again
  });
});

describe('auth status, auth token, whoami', () => {
  it('auth status shows the expiry, the scopes, the issuer and the store — never a token', async () => {
    const r = await w.runCli(['auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('credential\taccess token (store)\tstored for "dev" in <tmp>/config/credentials.json\n');
    expect(r.stdout).toContain('expires\t2026-01-01T01:00:00.000Z\tin 60 min; refreshed when under a minute is left\n');
    expect(r.stdout).toMatch(new RegExp(`^scopes\\t${PERMISSIONS.join(',')}\\t${PERMISSIONS.length} granted$`, 'm'));
    expect(r.stdout).toContain(`issuer\t${s.url}/v2/auth\trefreshes and sign-out go here\n`);
    expect(r.stdout).toContain('store\tfile\t<tmp>/config/credentials.json\n');
    const json = JSON.parse((await w.runCli(['auth', 'status', '--json'])).stdout);
    expect(json.credential).toEqual({
      type: 'access token',
      source: 'store',
      why: 'stored for "dev" in <tmp>/config/credentials.json',
      token: {
        expiresAt: '2026-01-01T01:00:00.000Z',
        scopes: expect.arrayContaining(['users:read']),
        issuer: `${s.url}/v2/auth`,
        refreshable: true,
      },
    });
    const { accessToken, refreshToken } = stored();
    for (const out of [r.raw.stdout, r.raw.stderr]) {
      expect(out).not.toContain(accessToken);
      expect(out).not.toContain(refreshToken);
    }
    w.clock.advance(3600_000);
    expect((await w.runCli(['auth', 'status'])).stdout).toContain(
      'expires\t2026-01-01T01:00:00.000Z\texpired; refreshed when under a minute is left\n',
    );
  });

  it('auth token prints the access token, refreshed first when it is about to expire', async () => {
    const first = await w.runCli(['auth', 'token']);
    expect(first).toMatchObject({ code: 0, stdout: `${stored().accessToken}\n`, stderr: '' });
    w.clock.advance(3600_000 - 30_000);
    const second = await w.runCli(['auth', 'token']);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toBe(first.stdout);
    expect(second.stdout).toBe(`${stored().accessToken}\n`);
    expect(await works(second.stdout.trim())).toBe(true);
  });

  it('auth token with an API key or nothing is exit 3; with PLAT_TOKEN it prints that', async () => {
    const local = await w.runCli(['--profile', 'local', 'auth', 'token']);
    expect(local.code).toBe(3);
    expect(local.stderr).toMatch(
      /^plat: the credential is an API key \(stored for "local" in .+\), not an access token/m,
    );
    const env = await w.runCli(['--profile', 'local', 'auth', 'token'], { env: { PLAT_TOKEN: 'eyJ.x.y' } });
    expect(env).toMatchObject({ code: 0, stdout: 'eyJ.x.y\n' });
  });

  it('whoami shows user, organization, type, scopes and expiry', async () => {
    const r = await w.runCli(['whoami']);
    expect(r.code, r.stderr).toBe(0);
    const [header, row] = r.stdout.split('\n');
    expect(header).toBe('TYPE\tUSER\tORGANIZATION\tSCOPES\tEXPIRES');
    expect(row).toMatch(
      new RegExp(`^user\\t${OWNER_EMAIL}\\tAcme \\(${s.orgId}\\)\\t${PERMISSIONS.join(',')}\\t\\d{4}-\\d\\d-\\d\\dT`),
    );
    const tty = await w.runCli(['whoami'], { tty: true });
    expect(tty.stdout).toMatch(/SESSION.*sess_/s);
    const key = await w.runCli(['--profile', 'local', 'whoami', '--json']);
    expect(JSON.parse(key.stdout)).toMatchObject({ type: 'api_key', user: { email: 'admin@localhost' } });
  });
});

describe('plat logout', () => {
  it('revokes the session at the server and removes the stored tokens', async () => {
    const { accessToken } = stored();
    expect(await works(accessToken)).toBe(true);
    const r = await w.runCli(['--verbose', 'logout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^→ POST .*\/v2\/auth\/revoke · 200 · /m);
    expect(r.stderr).toContain(
      'Signed out of profile "dev": the session is revoked and the tokens removed from <tmp>/config/credentials.json.\n',
    );
    expect(storedCredentials(w.configDir).dev).toBeUndefined();
    expect(await works(accessToken)).toBe(false);
    expect((await w.runCli(['users', 'list'])).code).toBe(3);
    expect(await w.runCli(['logout'])).toMatchObject({
      code: 0,
      stderr: 'Not signed in: nothing is stored for profile "dev".\n',
    });
  });

  it('still removes the tokens when the server cannot be reached, with a warning', async () => {
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const port = (srv.address() as { port: number }).port;
    await new Promise((resolve) => srv.close(resolve));
    patchCredential(w.configDir, 'dev', { issuer: `http://127.0.0.1:${port}/v2/auth` });
    const r = await w.runCli(['logout']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `plat: warning: discovery at http://127.0.0.1:${port}/v2/auth failed: the server could not be reached ` +
        '(ECONNREFUSED); the session may stay active at the server until it expires\n' +
        'Removed the tokens of profile "dev" from <tmp>/config/credentials.json.\n',
    );
    expect(storedCredentials(w.configDir).dev).toBeUndefined();
  });

  it('refuses the embedded profile (2), and removes a stored API key without revoking it', async () => {
    const local = await w.runCli(['--profile', 'local', 'logout']);
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('is the embedded platform: commands use its local API key, so there is no sign-in');
    const add = ['profiles', 'add', 'keyed', '--base-url', s.url, '--api-key-stdin'];
    expect((await w.runCli(add, { stdin: 'plat_live_someKeyOfThatServer' })).code).toBe(0);
    const r = await w.runCli(['--profile', 'keyed', 'logout']);
    expect(r).toMatchObject({ code: 0 });
    expect(r.stderr).toContain('Removed the API key stored for profile "keyed". The key itself stays valid');
    expect(storedCredentials(w.configDir).keyed).toBeUndefined();
  });
});
