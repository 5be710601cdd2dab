import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as client from 'openid-client';
import { afterEach, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../../src/contract/permissions.js';
import { bootstrap } from '../../../src/platform/operations/bootstrap.js';
import { type RunningServer, startServer } from '../../../src/platform/server.js';
import { testDatabase } from '../../helpers/backend.js';
import { baseOf } from '../../helpers/internals.js';
import { FormBrowser, formFields } from './helpers.js';

const PASSWORD = 'an owner password over a socket';

interface Harness {
  server: RunningServer;
  issuer: string;
  /** Every line the server wrote: access log and error log. */
  lines: string[];
  /** Every secret seen in the test, to look for in the lines. */
  secrets: string[];
}

const open: { server: RunningServer; dir: string }[] = [];
afterEach(async () => {
  for (const { server, dir } of open.splice(0)) {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A real listener on 127.0.0.1:0 over a temporary SQLite file, with a bootstrapped owner who has a password. */
async function harness(opts: { limits?: boolean } = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'plat-auth-'));
  const lines: string[] = [];
  const server = await startServer({
    ...(await testDatabase(join(dir, 'plat.db'))),
    port: 0,
    logger: (line) => lines.push(line),
    accessLog: (line) => lines.push(line),
    auth: { devicePollInterval: 1 },
    limits: opts.limits === false ? { enabled: false } : undefined,
  });
  open.push({ server, dir });
  await bootstrap(baseOf(server.platform), { email: 'owner@acme.test', orgName: 'Acme', password: PASSWORD });
  return { server, issuer: `${server.url}/v2/auth`, lines, secrets: [PASSWORD] };
}

function discover(h: Harness, algorithm: 'oidc' | 'oauth2' = 'oidc') {
  return client.discovery(new URL(h.issuer), 'plat-cli', undefined, client.None(), {
    algorithm,
    execute: [client.allowInsecureRequests],
  });
}

/** Drives the login form over plain HTTP (cookies and the CSRF token included) and returns the redirect. */
async function loginOverHttp(h: Harness, authorizationUrl: URL): Promise<URL> {
  const browser = new FormBrowser((r) => fetch(r), { 'User-Agent': 'plat-test-browser/1.0' });
  const page = await browser.get(authorizationUrl.href);
  expect(page.status).toBe(200);
  const fields = formFields(page.text);
  const done = await browser.post(`${h.server.url}/v2/auth/authorize`, {
    ...fields,
    email: 'owner@acme.test',
    password: PASSWORD,
  });
  expect(done.status).toBe(303);
  h.secrets.push(fields.csrf as string);
  return new URL(done.location as string);
}

function expectNoSecretsLogged(h: Harness): void {
  expect(h.lines.length).toBeGreaterThan(0);
  for (const line of h.lines) {
    for (const secret of h.secrets) expect(line).not.toContain(secret);
  }
  expect(h.lines.filter((l) => l.startsWith('internal error'))).toEqual([]);
}

describe('openid-client against a real listener', () => {
  it('discovers the server at both addresses', async () => {
    const h = await harness();
    for (const algorithm of ['oidc', 'oauth2'] as const) {
      const config = await discover(h, algorithm);
      const meta = config.serverMetadata();
      expect(meta).toMatchObject({
        issuer: h.issuer,
        authorization_endpoint: `${h.issuer}/authorize`,
        token_endpoint: `${h.issuer}/token`,
        revocation_endpoint: `${h.issuer}/revoke`,
        device_authorization_endpoint: `${h.issuer}/device/code`,
        jwks_uri: `${h.issuer}/jwks`,
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    }
    const rfc8414 = await fetch(`${h.server.url}/.well-known/oauth-authorization-server/v2/auth`);
    expect(rfc8414.status).toBe(200);
    const oidc = await fetch(`${h.issuer}/.well-known/openid-configuration`);
    expect(await rfc8414.json()).toEqual(await oidc.json());
  });

  it('signs in with the code flow and PKCE, calls the API, refreshes, detects reuse and revokes', async () => {
    const h = await harness();
    const config = await discover(h);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1:53123/callback',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const back = await loginOverHttp(h, url);
    h.secrets.push(verifier, back.searchParams.get('code') as string);
    const tokens = await client.authorizationCodeGrant(config, back, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    h.secrets.push(tokens.access_token, tokens.refresh_token as string);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope?.split(' ')).toHaveLength(PERMISSIONS.length);

    const whoami = await fetch(`${h.server.url}/v2/auth/whoami`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(whoami.status).toBe(200);
    const me = (await whoami.json()) as any;
    expect(me).toMatchObject({ type: 'user', user: { email: 'owner@acme.test' } });
    const sessions = await fetch(`${h.server.url}/v2/users/${me.user.id}/sessions`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(((await sessions.json()) as any).data).toEqual([
      expect.objectContaining({ ipAddress: '127.0.0.1', userAgent: 'plat-test-browser/1.0', current: true }),
    ]);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    h.secrets.push(refreshed.access_token, refreshed.refresh_token as string);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const reuse = client.refreshTokenGrant(config, tokens.refresh_token as string);
    await expect(reuse).rejects.toMatchObject({ error: 'invalid_grant' });
    const dead = await fetch(`${h.server.url}/v2/auth/whoami`, {
      headers: { Authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(dead.status).toBe(401);

    // A fresh sign-in, then RFC 7009 revocation through the client.
    const verifier2 = client.randomPKCECodeVerifier();
    const url2 = client.buildAuthorizationUrl(config, {
      redirect_uri: 'http://[::1]:53124/callback',
      code_challenge: await client.calculatePKCECodeChallenge(verifier2),
      code_challenge_method: 'S256',
      scope: 'projects:read',
      state,
    });
    const back2 = await loginOverHttp(h, url2);
    const second = await client.authorizationCodeGrant(config, back2, {
      pkceCodeVerifier: verifier2,
      expectedState: state,
    });
    h.secrets.push(
      verifier2,
      back2.searchParams.get('code') as string,
      second.access_token,
      second.refresh_token as string,
    );
    expect(second.scope).toBe('projects:read');
    await client.tokenRevocation(config, second.refresh_token as string);
    await client.tokenRevocation(config, 'an unknown token');
    const revoked = await fetch(`${h.server.url}/v2/auth/whoami`, {
      headers: { Authorization: `Bearer ${second.access_token}` },
    });
    expect(revoked.status).toBe(401);
    expectNoSecretsLogged(h);
  });

  it('runs the device grant: openid-client polls while the person approves on the page', async () => {
    const h = await harness();
    const config = await discover(h);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'projects:read users:read' });
    h.secrets.push(started.device_code);
    const polling = client.pollDeviceAuthorizationGrant(config, started);
    await new Promise((r) => setTimeout(r, 1500));
    const browser = new FormBrowser((r) => fetch(r));
    const page = await browser.get(started.verification_uri_complete as string);
    const approved = await browser.post(started.verification_uri, {
      ...formFields(page.text),
      user_code: started.user_code,
      email: 'owner@acme.test',
      password: PASSWORD,
      action: 'approve',
    });
    expect(approved.text).toContain('Device connected');
    const tokens = await polling;
    h.secrets.push(tokens.access_token, tokens.refresh_token as string);
    expect(tokens.scope).toBe('users:read projects:read');
    const whoami = await fetch(`${h.server.url}/v2/auth/whoami`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(whoami.status).toBe(200);
    expectNoSecretsLogged(h);
  });

  it('lets exactly one of N concurrent redemptions of one code win over the socket', async () => {
    const h = await harness({ limits: false });
    const config = await discover(h);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1:53125/callback',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const back = await loginOverHttp(h, url);
    const code = back.searchParams.get('code') as string;
    h.secrets.push(verifier, code);
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'plat-cli',
      code,
      redirect_uri: 'http://127.0.0.1:53125/callback',
      code_verifier: verifier,
    }).toString();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${h.issuer}/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body,
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(9);
    for (const a of answers) {
      const json = (await a.json()) as any;
      if (json.access_token) h.secrets.push(json.access_token, json.refresh_token);
    }
    expectNoSecretsLogged(h);
  });
});
