import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { type RunningServer, startServer } from '../../src/platform/server.js';
import { testDatabase } from '../helpers/backend.js';
import { baseOf } from '../helpers/internals.js';
import type { OidcIdp } from '../helpers/oidc-idp.js';
import { send } from '../helpers/platform.js';
import { begin, secretsOf, ssoBody, useTestIdp } from '../helpers/sso-oidc.js';
import { failedBecause, failurePage, visit } from '../helpers/sso-sign-in.js';
import { REDIRECT, tokenRequest } from './auth/helpers.js';

// The OpenID Connect sign-in over real sockets at both ends: `plat serve`'s listener on the real clock, the test IdP,
// and a browser that goes from one to the other over HTTP.

const testIdp = useTestIdp();
let idp: OidcIdp;
let server: RunningServer;
let dir: string;
let orgId: string;
let ownerKey: string;
const logs: string[] = [];
const accessLog: string[] = [];

beforeAll(async () => {
  idp = testIdp();
  dir = mkdtempSync(join(tmpdir(), 'plat-sso-oidc-'));
  server = await startServer({
    ...(await testDatabase(join(dir, 'plat.db'))),
    port: 0,
    logger: (line) => logs.push(line),
    accessLog: (line) => accessLog.push(line),
    limits: { enabled: false },
  });
  const boot = await bootstrap(baseOf(server.platform), {
    orgName: 'Acme',
    email: 'owner@acme.test',
    name: 'Olive Owner',
  });
  orgId = boot.organizationId;
  ownerKey = boot.apiKey;
  idp.setRedirectUris([`${server.url}/v2/sso/oidc/${orgId}/callback`]);
  await server.platform.admin.verifyDomain(orgId, 'acme.test');
  const saved = await call('PUT', `/organizations/${orgId}/sso`, { body: ssoBody(idp) });
  expect(saved.status).toBe(200);
  expect(saved.body.redirectUri).toBe(`${server.url}/v2/sso/oidc/${orgId}/callback`);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function call(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) {
  return send(fetch, server.url, opts.headers ? null : ownerKey, method, path, opts);
}

describe('a sign-in through the OpenID provider over HTTP', () => {
  it('lands on the callback, gives the client a code it redeems for an oidc session', async () => {
    const started = await begin({ platform: server.platform, orgId });
    const back = await idp.completeSignIn(started.url, 'alice');
    expect(back.href.startsWith(`${server.url}/v2/sso/oidc/${orgId}/callback?`)).toBe(true);
    const page = await visit(fetch, back);
    expect(page.status).toBe(303);
    const location = new URL(page.location as string);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('iss')).toBe(`${server.url}/v2/auth`);
    const tokens = await tokenRequest(
      fetch,
      {
        grant_type: 'authorization_code',
        client_id: 'plat-cli',
        code: location.searchParams.get('code') as string,
        redirect_uri: REDIRECT,
        code_verifier: started.verifier,
      },
      server.url,
    );
    expect(tokens.status).toBe(200);
    const userId = decodeJwt(tokens.body.access_token).sub as string;
    const bearer = { Authorization: `Bearer ${tokens.body.access_token}` };
    const sessions = await call('GET', `/users/${userId}/sessions`, { headers: bearer });
    expect(sessions.body.data).toEqual([expect.objectContaining({ method: 'oidc', current: true })]);
    expect(logs).toEqual([]);
  });

  it('refuses a token signed outside the JWKS with its page; logs say nothing of the sign-in', async () => {
    const started = await begin({ platform: server.platform, orgId });
    idp.forge({ foreignKey: true });
    const back = await idp.completeSignIn(started.url, 'alice');
    const page = await visit(fetch, back);
    expect(page.status).toBe(400);
    const check = "the ID token's signature does not verify with the identity provider's keys (JWKS)";
    expect(failurePage(page).message).toBe(failedBecause(check));
    expect(logs).toEqual([]);
    expect(accessLog.at(-1)).toMatch(
      new RegExp(`^127\\.0\\.0\\.1 GET /v2/sso/oidc/${orgId}/callback 400 \\S+ms req_\\w+$`),
    );
    for (const secret of [idp.clientSecret, started.request.id, ...secretsOf(started, back)]) {
      expect(accessLog.join('\n')).not.toContain(secret);
    }
  });
});
