import { generateKeyPairSync } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../../src/contract/permissions.js';
import { currentSigningKey } from '../../../src/platform/auth/signing-keys.js';
import { baseOf } from '../../helpers/internals.js';
import {
  AUTH_URL,
  type AuthTestPlatform,
  authorizationCode,
  authorizePlatform,
  ORIGIN,
  REDIRECT,
  redeem,
  tokenRequest,
  tokensFor,
  withToken,
} from './helpers.js';

const OTHER_CLIENT = { id: 'other-app', name: 'Other app', redirectUris: ['http://127.0.0.1/callback'] };

function refresh(t: AuthTestPlatform, refreshToken: string, extra: Record<string, string> = {}) {
  return tokenRequest(t.fetch, {
    grant_type: 'refresh_token',
    client_id: 'plat-cli',
    refresh_token: refreshToken,
    ...extra,
  });
}

async function whoamiStatus(t: AuthTestPlatform, token: string): Promise<number> {
  return (await t.call('GET', '/auth/whoami', withToken(token))).status;
}

describe('POST {auth_url}/token: authorization_code', () => {
  it('issues an RFC 9068 access token (ES256, kid, at+jwt) verifiable with the JWKS, and a refresh token', async () => {
    const t = await authorizePlatform();
    const { code, verifier } = await authorizationCode(t);
    const r = await redeem(t, code, verifier);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(r.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    expect(r.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(r.body.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const header = decodeProtectedHeader(r.body.access_token);
    const jwks = (await (await t.fetch(new Request(`${AUTH_URL}/jwks`))).json()) as any;
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: jwks.keys[0].kid });
    expect(jwks.keys[0]).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: expect.any(String),
      y: expect.any(String),
      kid: header.kid,
      alg: 'ES256',
      use: 'sig',
    });
    expect(jwks.keys[0].d).toBeUndefined();
    const { payload } = await jwtVerify(r.body.access_token, createLocalJWKSet(jwks), {
      issuer: AUTH_URL,
      audience: `${ORIGIN}/v2`,
      typ: 'at+jwt',
      currentDate: new Date('2026-01-01T00:00:00.000Z'),
    });
    expect(payload).toEqual({
      iss: AUTH_URL,
      aud: `${ORIGIN}/v2`,
      sub: t.ownerId,
      org: t.orgId,
      iat: 1767225600,
      exp: 1767225600 + 3600,
      scopes: r.body.scope.split(' '),
      scope: r.body.scope,
      sid: 'sess_0001',
      client_id: 'plat-cli',
      amr: ['pwd'],
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    expect(payload.scopes).toHaveLength(PERMISSIONS.length);
  });

  it('takes the access-token lifetime from createPlatform({ auth: { accessTokenTtl } })', async () => {
    const t = await authorizePlatform({ auth: { accessTokenTtl: 600 } });
    const tokens = await tokensFor(t);
    expect(tokens.expires_in).toBe(600);
    const claims = decodeJwt(tokens.access_token);
    expect((claims.exp as number) - (claims.iat as number)).toBe(600);
    t.clock.advance(599_000);
    expect(await whoamiStatus(t, tokens.access_token)).toBe(200);
    t.clock.advance(1000);
    const expired = await t.call('GET', '/auth/whoami', withToken(tokens.access_token));
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatchObject({
      code: 'authentication_failed',
      message: 'the access token has expired',
    });
  });

  it('accepts JSON as well as a form', async () => {
    const t = await authorizePlatform();
    const { code, verifier } = await authorizationCode(t);
    const res = await t.fetch(
      new Request(`${AUTH_URL}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'authorization_code',
          client_id: 'plat-cli',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
        }),
      }),
    );
    expect(res.status).toBe(200);
  });

  it('refuses a missing or malformed verifier (invalid_request) and a wrong one (invalid_grant) without spending the code', async () => {
    const t = await authorizePlatform();
    const { code, verifier, challenge } = await authorizationCode(t);
    const missing = await redeem(t, code, verifier, { code_verifier: '' });
    expect(missing).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: 'code_verifier is required (PKCE with S256)' },
    });
    const malformed = await redeem(t, code, 'short');
    expect(malformed.body.error).toBe('invalid_request');
    const wrong = await redeem(t, code, 'x'.repeat(43));
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge' },
    });
    // A verifier equal to the challenge ("plain") is just a wrong verifier, as is one a character away.
    expect((await redeem(t, code, challenge)).body.error).toBe('invalid_grant');
    const oneOff = (verifier[0] === 'Q' ? 'R' : 'Q') + verifier.slice(1);
    expect((await redeem(t, code, oneOff)).body.error).toBe('invalid_grant');
    expect((await redeem(t, code, verifier)).status).toBe(200);
  });

  it('binds the code to its redirect URI: another port, path or host is refused', async () => {
    const t = await authorizePlatform();
    const { code, verifier } = await authorizationCode(t);
    for (const redirect_uri of [
      'http://127.0.0.1:49153/callback',
      'http://127.0.0.1/callback',
      'http://[::1]:49152/callback',
      'http://127.0.0.1:49152/callback/',
    ]) {
      const r = await redeem(t, code, verifier, { redirect_uri });
      expect(r.body).toEqual({
        error: 'invalid_grant',
        error_description: 'redirect_uri does not match the authorization request',
      });
    }
    expect((await redeem(t, code, verifier, { redirect_uri: '' })).body.error).toBe('invalid_request');
    expect((await redeem(t, code, verifier)).status).toBe(200);
  });

  it("refuses another client's code, and an unknown client with 401 invalid_client", async () => {
    const t = await authorizePlatform({ auth: { clients: [OTHER_CLIENT] } });
    const { code, verifier } = await authorizationCode(t);
    const other = await redeem(t, code, verifier, {
      client_id: 'other-app',
      redirect_uri: 'http://127.0.0.1:49152/callback',
    });
    expect(other.body).toEqual({
      error: 'invalid_grant',
      error_description: 'the authorization code was issued to another client',
    });
    const unknown = await redeem(t, code, verifier, { client_id: 'nobody' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toContain('invalid_client');
    expect(unknown.body).toEqual({ error: 'invalid_client', error_description: 'unknown client_id' });
    expect((await redeem(t, code, verifier)).status).toBe(200);
  });

  it('expires a code after 60 seconds', async () => {
    const t = await authorizePlatform();
    const { code, verifier } = await authorizationCode(t);
    t.clock.advance(60_000);
    const r = await redeem(t, code, verifier);
    expect(r.body).toEqual({ error: 'invalid_grant', error_description: 'the authorization code has expired' });
  });

  it('answers a second use of a code with invalid_grant and revokes what the first use issued', async () => {
    const t = await authorizePlatform();
    const { code, verifier } = await authorizationCode(t);
    const first = await redeem(t, code, verifier);
    expect(await whoamiStatus(t, first.body.access_token)).toBe(200);
    const second = await redeem(t, code, verifier);
    expect(second.body).toEqual({
      error: 'invalid_grant',
      error_description: 'the authorization code was already used; the tokens issued for it are revoked',
    });
    expect(await whoamiStatus(t, first.body.access_token)).toBe(401);
    expect((await refresh(t, first.body.refresh_token)).body.error).toBe('invalid_grant');
    const events = await t.call('GET', `/organizations/${t.orgId}/events?type=session.revoked`);
    expect(events.body.data[0]).toMatchObject({
      actor: { type: 'system', id: 'auth' },
      target: { type: 'session', id: 'sess_0001' },
      data: { userId: t.ownerId, reason: 'authorization code reused' },
    });
  });

  it('lets exactly one of N concurrent redemptions of a code win', async () => {
    const t = await authorizePlatform();
    const { code, verifier } = await authorizationCode(t);
    const results = await Promise.all(Array.from({ length: 12 }, () => redeem(t, code, verifier)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(11);
  });

  it('answers unknown codes, grant types and bodies in the RFC 6749 §5.2 form', async () => {
    const t = await authorizePlatform();
    expect((await redeem(t, 'no-such-code', 'v'.repeat(43))).body).toEqual({
      error: 'invalid_grant',
      error_description: 'invalid authorization code',
    });
    expect((await tokenRequest(t.fetch, { client_id: 'plat-cli', grant_type: 'password' })).body).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'grant_type password is not supported',
    });
    expect((await tokenRequest(t.fetch, { client_id: 'plat-cli' })).body.error).toBe('invalid_request');
    const text = await t.fetch(new Request(`${AUTH_URL}/token`, { method: 'POST', body: 'grant_type=x' }));
    expect(text.status).toBe(400);
    expect(((await text.json()) as any).error).toBe('invalid_request');
    const twice = await t.fetch(
      new Request(`${AUTH_URL}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&client_id=plat-cli&refresh_token=a&refresh_token=b',
      }),
    );
    expect(await twice.json()).toEqual({
      error: 'invalid_request',
      error_description: 'refresh_token is given more than once',
    });
    expect((await t.fetch(new Request(`${AUTH_URL}/token`))).status).toBe(405);
    const huge = await tokenRequest(t.fetch, { client_id: 'plat-cli', grant_type: 'x', pad: 'x'.repeat(70_000) });
    expect(huge.body.error).toBe('invalid_request');
  });
});

describe('refresh tokens', () => {
  it('rotate on every use and never widen; narrowing works and keeps the grant', async () => {
    const t = await authorizePlatform();
    const first = await tokensFor(t, { extra: { scope: 'projects:read users:read' } });
    t.clock.advance(5000);
    const wider = await refresh(t, first.refresh_token, { scope: 'projects:read users:write' });
    expect(wider.body).toEqual({ error: 'invalid_scope', error_description: 'scope wider than granted: users:write' });
    const unknown = await refresh(t, first.refresh_token, { scope: 'everything' });
    expect(unknown.body.error).toBe('invalid_scope');
    const narrow = await refresh(t, first.refresh_token, { scope: 'projects:read' });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe('projects:read');
    expect(decodeJwt(narrow.body.access_token).scopes).toEqual(['projects:read']);
    expect(narrow.body.refresh_token).not.toBe(first.refresh_token);
    const full = await refresh(t, narrow.body.refresh_token);
    expect(full.body.scope).toBe('users:read projects:read');
    expect(decodeJwt(full.body.access_token).sid).toBe(decodeJwt(first.access_token).sid);
  });

  it('revoke the whole session when a rotated one is used again (RFC 9700 §4.14.2)', async () => {
    const t = await authorizePlatform();
    const first = await tokensFor(t);
    const second = await refresh(t, first.refresh_token);
    expect(second.status).toBe(200);
    const reuse = await refresh(t, first.refresh_token);
    expect(reuse.body).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token was already used; its session is revoked',
    });
    expect(await whoamiStatus(t, second.body.access_token)).toBe(401);
    expect((await refresh(t, second.body.refresh_token)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'the session of this refresh token has ended',
    });
  });

  it('are bound to their client', async () => {
    const t = await authorizePlatform({ auth: { clients: [OTHER_CLIENT] } });
    const first = await tokensFor(t);
    const other = await refresh(t, first.refresh_token, { client_id: 'other-app' });
    expect(other.body).toEqual({ error: 'invalid_grant', error_description: 'invalid refresh token' });
    expect((await refresh(t, first.refresh_token)).status).toBe(200);
  });

  it('have a JSON form at POST /auth/refresh, with the API error envelope', async () => {
    const t = await authorizePlatform();
    const first = await tokensFor(t);
    const r = await t.call('POST', '/auth/refresh', {
      key: null,
      body: { refreshToken: first.refresh_token, clientId: 'plat-cli' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual({
      accessToken: expect.any(String),
      refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      tokenType: 'Bearer',
      expiresIn: 3600,
      scope: first.scope,
    });
    const reused = await t.call('POST', '/auth/refresh', {
      key: null,
      body: { refreshToken: first.refresh_token, clientId: 'plat-cli' },
    });
    expect(reused.status).toBe(401);
    expect(reused.body.error).toMatchObject({
      code: 'authentication_failed',
      message: 'the refresh token was already used; its session is revoked',
    });
    const badClient = await t.call('POST', '/auth/refresh', {
      key: null,
      body: { refreshToken: 'x', clientId: 'nobody' },
    });
    expect(badClient.body.error).toMatchObject({ code: 'authentication_failed', message: 'unknown clientId' });
    expect((await t.call('POST', '/auth/refresh', { key: null, body: { clientId: 'plat-cli' } })).status).toBe(400);
    const extra = await t.call('POST', '/auth/refresh', {
      key: null,
      body: { refreshToken: 'x', clientId: 'plat-cli', scope: 'a' },
    });
    expect(extra.status).toBe(422);
  });
});

describe('POST {auth_url}/revoke', () => {
  function revoke(t: AuthTestPlatform, token: string, clientId = 'plat-cli') {
    return t.fetch(
      new Request(`${AUTH_URL}/revoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: clientId }).toString(),
      }),
    );
  }

  it('revokes the session of a refresh token; unknown tokens still answer 200', async () => {
    const t = await authorizePlatform();
    const tokens = await tokensFor(t);
    const r = await revoke(t, tokens.refresh_token);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('');
    expect(await whoamiStatus(t, tokens.access_token)).toBe(401);
    expect((await refresh(t, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await revoke(t, tokens.refresh_token)).status).toBe(200);
    expect((await revoke(t, 'never-issued')).status).toBe(200);
    expect((await revoke(t, 'a.b.c')).status).toBe(200);
  });

  it('revokes the session of an access token', async () => {
    const t = await authorizePlatform();
    const tokens = await tokensFor(t);
    expect((await revoke(t, tokens.access_token)).status).toBe(200);
    expect(await whoamiStatus(t, tokens.access_token)).toBe(401);
    expect((await refresh(t, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it("refuses another client's token and a request without a token or client", async () => {
    const t = await authorizePlatform({ auth: { clients: [OTHER_CLIENT] } });
    const tokens = await tokensFor(t);
    const other = await revoke(t, tokens.refresh_token, 'other-app');
    expect(other.status).toBe(400);
    expect(await other.json()).toEqual({
      error: 'unauthorized_client',
      error_description: 'the token was issued to another client',
    });
    expect(await whoamiStatus(t, tokens.access_token)).toBe(200);
    expect((await revoke(t, '')).status).toBe(400);
    expect((await revoke(t, tokens.refresh_token, 'nobody')).status).toBe(401);
  });
});

describe('bearer authentication', () => {
  /** A token like the platform's, with one thing changed. */
  async function forged(
    t: AuthTestPlatform,
    change: { header?: Record<string, unknown>; claims?: Record<string, unknown>; key?: 'foreign' },
  ) {
    const good = await tokensFor(t);
    const claims = { ...decodeJwt(good.access_token), ...change.claims };
    const key = await currentSigningKey(baseOf(t.platform));
    const signingKey =
      change.key === 'foreign' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey : key.privateKey;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid, ...change.header })
      .sign(signingKey);
  }

  it('refuses alg none, HS256 keyed with the public key, a foreign key, and wrong typ, iss, aud or exp', async () => {
    const t = await authorizePlatform();
    const good = await tokensFor(t);
    const [h, p] = good.access_token.split('.') as [string, string];
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const none = `${b64({ ...header, alg: 'none' })}.${p}.`;
    const key = await currentSigningKey(baseOf(t.platform));
    const pem = key.publicKey.export({ type: 'spki', format: 'pem' });
    const hs256 = await new SignJWT(decodeJwt(good.access_token))
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })
      .sign(new TextEncoder().encode(pem as string));
    const cases = {
      none,
      hs256,
      foreign: await forged(t, { key: 'foreign' }),
      typJwt: await forged(t, { header: { typ: 'JWT' } }),
      noTyp: await forged(t, { header: { typ: undefined } }),
      noKid: await forged(t, { header: { kid: undefined } }),
      iss: await forged(t, { claims: { iss: 'http://evil.test/v2/auth' } }),
      aud: await forged(t, { claims: { aud: 'http://other.test/v2' } }),
      expired: await forged(t, { claims: { exp: 1767225600 } }),
      noSid: await forged(t, { claims: { sid: undefined } }),
      otherSession: await forged(t, { claims: { sid: 'sess_9999' } }),
      otherOrg: await forged(t, { claims: { org: 'org_9999' } }),
      tampered: `${h}.${b64({ ...decodeJwt(good.access_token), scopes: ['sso:write'] })}.${good.access_token.split('.')[2]}`,
      garbage: 'not-a-jwt',
    };
    expect(await whoamiStatus(t, good.access_token)).toBe(200);
    for (const [name, token] of Object.entries(cases)) {
      const r = await t.call('GET', '/auth/whoami', withToken(token));
      expect({ name, status: r.status, code: r.body.error?.code }).toEqual({
        name,
        status: 401,
        code: 'authentication_failed',
      });
      expect(JSON.stringify(r.body)).not.toContain(token);
    }
    expect(t.logs).toEqual([]);
  });

  it('stops a token as soon as its session is revoked, and when its user is suspended', async () => {
    const t = await authorizePlatform();
    const own = await tokensFor(t);
    const sid = decodeJwt(own.access_token).sid as string;
    expect((await t.call('DELETE', `/users/${t.ownerId}/sessions/${sid}`)).status).toBe(204);
    const revoked = await t.call('GET', '/auth/whoami', withToken(own.access_token));
    expect(revoked.body.error).toMatchObject({
      code: 'authentication_failed',
      message: 'the session of this access token has ended',
    });

    const mia = await t.addUser({ email: 'mia@acme.test', password: 'member password is long', role: 'admin' });
    const tokens = await tokensFor(t, { email: 'mia@acme.test', password: 'member password is long' });
    expect(await whoamiStatus(t, tokens.access_token)).toBe(200);
    expect((await t.call('POST', `/users/${mia}/suspend`)).status).toBe(200);
    expect(await whoamiStatus(t, tokens.access_token)).toBe(401);
    expect((await refresh(t, tokens.refresh_token)).body.error).toBe('invalid_grant');
    expect((await t.call('POST', `/users/${mia}/unsuspend`)).status).toBe(200);
    expect(await whoamiStatus(t, tokens.access_token)).toBe(401);
  });

  it('acts with the granted scopes intersected with the role, in the token org or another via X-Org-Id', async () => {
    const t = await authorizePlatform();
    const second = await t.call('POST', '/organizations', { body: { name: 'Second Org' } });
    const narrow = await tokensFor(t, { extra: { scope: 'projects:read', org: t.orgId } });
    expect((await t.call('GET', `/organizations/${t.orgId}/projects`, withToken(narrow.access_token))).status).toBe(
      200,
    );
    const users = await t.call('GET', `/organizations/${t.orgId}/users`, withToken(narrow.access_token));
    expect(users.status).toBe(403);
    const there = await t.call('GET', '/auth/whoami', withToken(narrow.access_token, { 'X-Org-Id': second.body.id }));
    expect(there.status).toBe(200);
    expect(there.body.organization.id).toBe(second.body.id);
    expect(there.body.scopes).toEqual(['projects:read']);
    const write = await t.call('POST', `/organizations/${t.orgId}/projects`, {
      ...withToken(narrow.access_token),
      body: { name: 'Nope' },
    });
    expect(write.status).toBe(403);
    const other = baseOf(t.platform);
    const stranger = other.ids('organization');
    const notMine = await t.call('GET', '/auth/whoami', withToken(narrow.access_token, { 'X-Org-Id': stranger }));
    expect(notMine.status).toBe(403);
  });

  it('updates the session lastActive at most once a minute', async () => {
    const t = await authorizePlatform();
    const tokens = await tokensFor(t);
    const sid = decodeJwt(tokens.access_token).sid as string;
    const lastActive = async () => (await baseOf(t.platform).stores.sessions.byId(sid))?.lastActive;
    expect(await lastActive()).toBe('2026-01-01T00:00:00.000Z');
    t.clock.advance(59_000);
    await whoamiStatus(t, tokens.access_token);
    expect(await lastActive()).toBe('2026-01-01T00:00:00.000Z');
    t.clock.advance(1000);
    await whoamiStatus(t, tokens.access_token);
    expect(await lastActive()).toBe('2026-01-01T00:01:00.000Z');
  });

  it('records the session with address, user agent and client; sessions lists it as current', async () => {
    const t = await authorizePlatform();
    const tokens = await tokensFor(t);
    const sessions = await t.call('GET', `/users/${t.ownerId}/sessions`, withToken(tokens.access_token));
    expect(sessions.body.data).toEqual([
      {
        id: 'sess_0001',
        userId: t.ownerId,
        method: 'password',
        amr: ['pwd'],
        ipAddress: null,
        userAgent: null,
        createdAt: '2026-01-01T00:00:00.000Z',
        lastActive: '2026-01-01T00:00:00.000Z',
        expiresAt: '2026-01-31T00:00:00.000Z',
        current: true,
      },
    ]);
  });

  it('revokes every other real session with keepCurrent, and their tokens stop at once', async () => {
    const t = await authorizePlatform();
    const laptop = await tokensFor(t);
    const phone = await tokensFor(t);
    const tablet = await tokensFor(t);
    const listed = await t.call('GET', `/users/${t.ownerId}/sessions`, withToken(laptop.access_token));
    expect(listed.body.data.map((s: { current: boolean }) => s.current).sort()).toEqual([false, false, true]);
    const r = await t.call('DELETE', `/users/${t.ownerId}/sessions?keepCurrent=true`, withToken(laptop.access_token));
    expect(r).toMatchObject({ status: 200, body: { revoked: 2 } });
    expect((await t.call('GET', `/users/${t.ownerId}`, withToken(laptop.access_token))).status).toBe(200);
    for (const gone of [phone, tablet]) {
      expect((await t.call('GET', `/users/${t.ownerId}`, withToken(gone.access_token))).status).toBe(401);
      const refresh = await tokenRequest(t.platform.fetch, {
        grant_type: 'refresh_token',
        refresh_token: gone.refresh_token,
        client_id: 'plat-cli',
      });
      expect(refresh.status).toBe(400);
    }
    const all = await t.call('DELETE', `/users/${t.ownerId}/sessions`, withToken(laptop.access_token));
    expect(all.body).toEqual({ revoked: 1 });
    expect((await t.call('GET', `/users/${t.ownerId}`, withToken(laptop.access_token))).status).toBe(401);
  });
});

describe('GET /auth/whoami', () => {
  it('describes a user token and an API key', async () => {
    const t = await authorizePlatform();
    const tokens = await tokensFor(t);
    const user = await t.call('GET', '/auth/whoami', withToken(tokens.access_token));
    expect(user.body).toMatchObject({
      type: 'user',
      user: { id: t.ownerId, email: 'owner@acme.test', role: 'owner', lastLoginAt: '2026-01-01T00:00:00.000Z' },
      apiKey: null,
      organization: { id: t.orgId, name: 'Acme' },
      sessionId: 'sess_0001',
      expiresAt: '2026-01-01T01:00:00.000Z',
    });
    expect(user.body.scopes).toHaveLength(PERMISSIONS.length);
    const key = await t.call('GET', '/auth/whoami');
    expect(key.body).toMatchObject({
      type: 'api_key',
      user: { id: t.ownerId },
      apiKey: { organizationId: t.orgId, multiOrganization: true, revokedAt: null },
      organization: { id: t.orgId },
      sessionId: null,
      expiresAt: null,
    });
    expect((await t.call('GET', '/auth/whoami', { key: null })).status).toBe(401);
    const both = await t.call('GET', '/auth/whoami', { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(both.status).toBe(400);
  });
});
