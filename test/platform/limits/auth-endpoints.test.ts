import { describe, expect, it } from 'vitest';
import { AUTH_ENDPOINT_LIMITS } from '../../../src/contract/limits.js';
import { incomingOf, responseOf } from '../../../src/platform/http/fetch.js';
import { pipelineFor } from '../../../src/platform/http/pipeline.js';
import { newRequestId } from '../../../src/platform/http/reply.js';
import { publicRoute } from '../../../src/platform/http/route.js';
import { createLimiter } from '../../../src/platform/limits/limiter.js';
import { memoryBucketStore } from '../../../src/platform/limits/memory-store.js';
import { chargeFailedSignIn, rateLimitedError, signInBudget } from '../../../src/platform/limits/sign-in.js';
import { baseOf } from '../../helpers/internals.js';
import { testPlatform } from '../../helpers/platform.js';
import { limitedPlatform, limitsOf, T0S } from './helpers.js';

const form = (fields: Record<string, string>) => ({
  key: null,
  body: new URLSearchParams(fields).toString(),
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
});

describe('the auth endpoints’ own limits', () => {
  it('limits POST /auth/token per client_id (form or JSON), in the OAuth error form', async () => {
    const t = await limitedPlatform();
    const rule = AUTH_ENDPOINT_LIMITS.token;
    for (let i = 0; i < rule.burst; i++) {
      const r = await t.call(
        'POST',
        '/auth/token',
        i % 2 ? form({ client_id: 'plat-cli' }) : { key: null, body: { client_id: 'plat-cli' } },
      );
      expect(r.status).not.toBe(429);
      expect(limitsOf(r)).toMatchObject({ limit: 20, remaining: rule.burst - 1 - i });
    }
    const refused = await t.call('POST', '/auth/token', form({ client_id: 'plat-cli', grant_type: 'refresh_token' }));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'rate_limit_exceeded',
      error_description: 'too many /v2/auth/token requests for this client: 20 a minute; retry in 3 s',
    });
    expect(limitsOf(refused)).toEqual({ limit: 20, remaining: 0, reset: T0S + 30, retryAfter: 3 });
    // Another client, or HTTP Basic client authentication naming another client, has its own budget.
    expect((await t.call('POST', '/auth/token', form({ client_id: 'cli_other' }))).status).not.toBe(429);
    const basic = { Authorization: `Basic ${Buffer.from('cli_third:secret').toString('base64')}` };
    const r = await t.call('POST', '/auth/token', {
      ...form({ grant_type: 'refresh_token' }),
      headers: { ...form({}).headers, ...basic },
    });
    expect(limitsOf(r)).toMatchObject({ limit: 20, remaining: 9 });
    // The plan's bucket is untouched.
    expect(limitsOf(await t.call('GET', '/organizations'))).toMatchObject({ limit: 6000, remaining: 999 });
    t.clock.advance(3000);
    expect((await t.call('POST', '/auth/token', form({ client_id: 'plat-cli' }))).status).not.toBe(429);
  });

  it('limits POST /auth/refresh per clientId and POST /auth/revoke per client_id', async () => {
    const t = await limitedPlatform();
    for (let i = 0; i < 15; i++) {
      const r = await t.call('POST', '/auth/refresh', { key: null, body: { refreshToken: 'x', clientId: 'plat-cli' } });
      expect(r.status).not.toBe(429);
    }
    const refresh = await t.call('POST', '/auth/refresh', {
      key: null,
      body: { refreshToken: 'x', clientId: 'plat-cli' },
    });
    expect(refresh.status).toBe(429);
    expect(refresh.body.error).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    expect(limitsOf(refresh)).toMatchObject({ limit: 30, retryAfter: 2 });
    for (let i = 0; i < 5; i++) {
      expect((await t.call('POST', '/auth/revoke', form({ client_id: 'plat-cli', token: 'x' }))).status).not.toBe(429);
    }
    const revoke = await t.call('POST', '/auth/revoke', form({ client_id: 'plat-cli', token: 'x' }));
    expect(revoke.status).toBe(429);
    expect(revoke.body.error).toBe('rate_limit_exceeded');
    expect(limitsOf(revoke)).toMatchObject({ limit: 10, retryAfter: 6 });
  });

  it('limits GET /auth/whoami per credential, apart from the plan', async () => {
    const t = await limitedPlatform();
    for (let i = 0; i < 30; i++) {
      const r = await t.call('GET', '/auth/whoami');
      expect(r.status).not.toBe(429);
      expect(limitsOf(r)).toMatchObject({ limit: 60, remaining: 29 - i });
    }
    const refused = await t.call('GET', '/auth/whoami');
    expect(refused.status).toBe(429);
    expect(limitsOf(refused)).toMatchObject({ limit: 60, remaining: 0, retryAfter: 1 });
    // Its words say which bucket: the endpoint's own, not the plan's.
    expect(refused.body).toEqual({
      error: {
        code: 'rate_limit_exceeded',
        message: 'too many /v2/auth/whoami requests for this credential: 60 a minute; retry in 1 s',
        status: 429,
        requestId: refused.headers.get('x-request-id'),
      },
    });
    expect((await t.call('GET', '/auth/whoami', { key: await t.keyFor(t.ownerId) })).status).not.toBe(429);
    expect(limitsOf(await t.call('GET', '/organizations'))).toMatchObject({ limit: 6000, remaining: 999 });
  });
});

describe('the hooks for other routes', () => {
  /** A pipeline with a token endpoint that reads its body, a page without a bucket, and a sign-in form that charges failures. */
  async function app() {
    const t = await testPlatform();
    const limiter = createLimiter({ store: memoryBucketStore(), clock: t.clock });
    const routes = [
      publicRoute({
        method: 'POST',
        path: '/auth/token',
        operationId: 'token',
        summary: 'token',
        tag: 'auth',
        access: 'public',
        limit: 'token',
        handler: async (_ctx, c) => c.json({ clientId: new URLSearchParams(await c.req.text()).get('client_id') }),
      }),
      publicRoute({
        method: 'GET',
        path: '/elsewhere',
        operationId: 'elsewhere',
        summary: 'elsewhere',
        tag: 'auth',
        access: 'public',
        handler: (_ctx, c) => c.body(null, 302, { Location: 'http://plat.test/v2/health' }),
      }),
      publicRoute({
        method: 'POST',
        path: '/login',
        operationId: 'login',
        summary: 'login',
        tag: 'auth',
        access: 'public',
        handler: async (_ctx, c) => {
          const budget = await signInBudget(c);
          if (budget && !budget.allowed) throw rateLimitedError(budget, 'too many failed sign-ins');
          const { password } = JSON.parse(await c.req.text());
          if (password === 'right') return c.json({ ok: true });
          await chargeFailedSignIn(c);
          return c.json({ ok: false }, 401);
        },
      }),
    ];
    const pipeline = pipelineFor(routes);
    const deps = {
      makeBase: (requestId: string) => ({ ...baseOf(t.platform), requestId }),
      requestId: newRequestId,
      limiter,
      logger: () => {},
    };
    return {
      t,
      fetch: async (r: Request) => responseOf(await pipeline(deps, incomingOf(r, undefined)), r.method),
    };
  }

  it('leaves the body readable for the route', async () => {
    const { fetch } = await app();
    const r = await fetch(
      new Request('http://plat.test/v2/auth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'client_id=plat-cli&grant_type=authorization_code',
      }),
    );
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ clientId: 'plat-cli' });
    expect(r.headers.get('x-ratelimit-remaining')).toBe('9');
  });

  it('spends nothing, and shows no budget, on a page without a bucket', async () => {
    const { fetch } = await app();
    const r = await fetch(new Request('http://plat.test/v2/elsewhere'));
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('http://plat.test/v2/health');
    expect(r.headers.get('x-ratelimit-remaining')).toBeNull();
  });

  it('lets sign-in charge failures to the address bucket and refuse once it is empty', async () => {
    const { t, fetch } = await app();
    const login = (password: string) =>
      fetch(
        new Request('http://plat.test/v2/login', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ password }),
        }),
      );
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await login('wrong');
      expect(r.status).toBe(401);
      remaining.push(r.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    const refused = await login('right');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(((await refused.json()) as any).error.message).toBe('too many failed sign-ins; retry in 2 s');
    t.clock.advance(2000);
    expect((await login('right')).status).toBe(200);
  });
});
