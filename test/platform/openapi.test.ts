import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RFC8414_PATH } from '../../src/platform/auth/discovery.js';
import { buildOpenApi } from '../../src/platform/http/openapi.js';
import { ROUTES } from '../../src/platform/http/routes/index.js';
import { Conformance, ConformanceError, conformance } from '../helpers/conformance.js';
import { testPlatform } from '../helpers/platform.js';

// The OpenAPI document (docs/api.md, "Conventions", issue 16): what it holds, that the conformance check every API test runs
// through (helpers/conformance.ts) catches a drift, and Redocly's recommended rules.

const ROOT = new URL('../../', import.meta.url);
const served = buildOpenApi(ROUTES) as any;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const ops = Object.entries(served.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, op]) => ({ path, method, op })),
);

describe('the OpenAPI document', () => {
  it('is what GET /v2/openapi.json serves, and what docs/openapi.json holds (`npm run docs`)', async () => {
    const t = await testPlatform();
    const res = await t.call('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(served);
    const onDisk = JSON.parse(readFileSync(new URL('docs/openapi.json', ROOT), 'utf8'));
    expect(onDisk).toEqual(served);
  });

  it('describes every route of the table, the document itself and the RFC 8414 address, each once', () => {
    const described = ops.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort();
    const routes = [...ROUTES.map((r) => `${r.method} ${r.path}`), 'GET /openapi.json', `GET ${RFC8414_PATH}`].sort();
    expect(described).toEqual(routes);
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('asks no credential of a public operation, a SCIM token of a SCIM one, and an API credential of every other', () => {
    for (const { path, method, op } of ops) {
      const route = ROUTES.find((r) => r.path === path && r.method.toLowerCase() === method);
      const isPublic = route === undefined || route.access === 'public';
      const isScim = route?.access === 'scim';
      const security = isPublic ? [] : isScim ? [{ scimToken: [] }] : [{ apiKey: [] }, { bearer: [] }];
      expect(op.security, `${method} ${path}`).toEqual(security);
      expect(
        op.parameters.some((p: any) => p.$ref === '#/components/parameters/X-Org-Id'),
        path,
      ).toBe(!isPublic && !isScim);
    }
  });

  it('gives every operation its answers: a success, a 4xx, 429 and 500, and X-Request-Id on every one', () => {
    for (const { path, method, op } of ops) {
      const codes = Object.keys(op.responses);
      expect(
        codes.some((c) => c.startsWith('2')),
        `${method} ${path}`,
      ).toBe(true);
      expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['414', '429', '431', '500']));
      if (method !== 'get') expect(codes, `${method} ${path}`).toContain('413');
      for (const [code, response] of Object.entries(op.responses as Record<string, any>)) {
        const r = response.$ref ? served.components.responses[response.$ref.split('/').pop()] : response;
        expect(r.headers['X-Request-Id'], `${method} ${path} ${code}`).toEqual({
          $ref: '#/components/headers/X-Request-Id',
        });
        if (code === '429') expect(Object.keys(r.headers)).toContain('Retry-After');
        if (code === '303') expect(Object.keys(r.headers)).toContain('Location');
      }
    }
  });

  it('describes the public operations: forms, the OAuth error form, HTML pages, the token answer', () => {
    const token = served.paths['/auth/token'].post;
    expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded', 'application/json']);
    expect(token.requestBody.content['application/x-www-form-urlencoded'].schema).toEqual({
      $ref: '#/components/schemas/TokenRequest',
    });
    expect(served.components.schemas.TokenRequest.discriminator.propertyName).toBe('grant_type');
    expect(token.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/TokenResponse',
    });
    // The OAuth error form, or the envelope of a request the listener could not take.
    expect(token.responses['400'].content['application/json'].schema).toEqual({
      oneOf: [{ $ref: '#/components/schemas/OAuthError' }, { $ref: '#/components/schemas/Error' }],
    });
    expect(served.paths[RFC8414_PATH].servers).toEqual([{ url: '/' }]);
    expect(served.paths[RFC8414_PATH].get.responses['200']).toEqual(
      served.paths['/auth/.well-known/openid-configuration'].get.responses['200'],
    );
    expect(token.responses['401'].headers['WWW-Authenticate']).toBeDefined();
    const page = served.paths['/auth/authorize'];
    expect(page.get.responses['200'].content).toEqual({ 'text/html': { schema: { type: 'string' } } });
    expect(Object.keys(page.get.responses)).toEqual(expect.arrayContaining(['200', '303', '400']));
    expect(page.get.parameters.filter((p: any) => p.required && p.in === 'query').map((p: any) => p.name)).toEqual([
      'response_type',
      'client_id',
      'redirect_uri',
      'code_challenge',
      'code_challenge_method',
    ]);
    expect(page.post.requestBody.content['application/x-www-form-urlencoded']).toBeDefined();
    expect(served.paths['/auth/jwks'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Jwks',
    });
  });

  it("states SSO's conditional requirements in the schema: one protocol's fields, SAML's metadata, OIDC's client", () => {
    const check = new Conformance(served);
    const valid = (body: unknown) => check.validate('#/components/schemas/SsoPut', body);
    const mapping = { email: 'mail' };
    const saml = { protocol: 'saml', provider: 'okta', metadataUrl: 'https://idp.test/m', attributeMapping: mapping };
    const oidc = {
      protocol: 'oidc',
      provider: 'okta',
      issuer: 'https://idp.test',
      clientId: 'c',
      attributeMapping: mapping,
    };
    expect(valid(saml)).toEqual([]);
    expect(valid({ ...saml, domains: ['Acme.EXAMPLE', 'xn--bcher-kva.example'] })).toEqual([]);
    expect(valid(oidc)).toEqual([]);
    expect(valid({ ...oidc, clientSecret: 's' })).toEqual([]);
    const { metadataUrl: _, ...samlWithout } = saml;
    const { issuer: __, ...oidcWithout } = oidc;
    for (const wrong of [
      samlWithout, // SAML needs its metadata
      { ...saml, metadataXml: '<m/>' }, // one of the two, not both
      { ...saml, issuer: 'https://idp.test' }, // an OIDC field with SAML
      oidcWithout, // OIDC needs the issuer
      { ...oidc, provider: 'custom-saml' }, // a custom provider fixes the protocol
      { ...saml, attributeMapping: { name: 'n' } }, // the mapping needs email
      { ...saml, metadataUrl: 'ftp://idp.test/m' },
      { ...saml, domains: ['not a domain'] },
    ]) {
      expect(valid(wrong), JSON.stringify(wrong)).not.toEqual([]);
    }
  });

  it('types page, per_page and limit as integers with the bounds the server holds them to', async () => {
    const paging = ops.flatMap(({ path, method, op }) =>
      op.parameters
        .filter((p: any) => ['page', 'per_page', 'limit'].includes(p.name))
        .map((p: any) => ({ path, method, param: p })),
    );
    expect(paging.length).toBeGreaterThan(10);
    for (const { path, method, param } of paging) {
      expect(param.schema, `${method} ${path} ${param.name}`).toEqual({
        type: 'integer',
        minimum: 1,
        maximum: expect.any(Number),
      });
    }
    // The server takes each bound and refuses one past it, as the document says.
    const t = await testPlatform();
    const list = `/organizations/${t.orgId}/users`;
    const users = ops.find((o) => o.path === '/organizations/{orgId}/users' && o.method === 'get')?.op;
    for (const param of users.parameters.filter((p: any) => ['page', 'per_page', 'limit'].includes(p.name))) {
      const { minimum, maximum } = param.schema;
      for (const [value, status] of [
        [minimum, 200],
        [maximum, 200],
        [minimum - 1, 400],
        [maximum + 1, 400],
      ]) {
        const r = await t.call('GET', `${list}?${param.name}=${value}`);
        expect(r.status, `${param.name}=${value}: ${JSON.stringify(r.body)}`).toBe(status);
      }
    }
  });

  it("passes Redocly's recommended rules with no error and no warning", () => {
    const cli = new URL('node_modules/@redocly/cli/bin/cli.js', ROOT).pathname;
    const run = spawnSync(process.execPath, [cli, 'lint', 'docs/openapi.json', '--format', 'json'], {
      cwd: ROOT.pathname,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' },
      timeout: 120_000,
    });
    const report = JSON.parse(run.stdout) as { totals: Record<string, number>; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 150_000);
});

describe('the conformance check', () => {
  const exchange = (over: Partial<Parameters<Conformance['check']>[0]> = {}) => ({
    method: 'GET',
    url: 'http://plat.test/v2/users/user_0001',
    status: 200,
    headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'req_1' }),
    body: JSON.stringify({}),
    ...over,
  });

  it('fails a test whose answer drifts from its description: a record planted with a field of the wrong type', async () => {
    const t = await testPlatform({
      wrapStores: (stores) => ({
        ...stores,
        users: {
          ...stores.users,
          get: async (...args: Parameters<typeof stores.users.get>) => {
            const user = await stores.users.get(...args);
            return user && ({ ...user, emailVerified: 'yes' } as never);
          },
        },
      }),
    });
    const drift = t.call('GET', `/users/${t.ownerId}`);
    await expect(drift).rejects.toBeInstanceOf(ConformanceError);
    await expect(drift).rejects.toThrow(/GET \/v2\/users\/user_0001 → 200: body\/emailVerified must be boolean/);
  });

  it('names a status, a content type, a header or a Location the document does not describe', () => {
    const check = conformance();
    expect(check.check(exchange({ status: 418 }))[0]).toMatch(/status 418 is not described/);
    expect(
      check.check(exchange({ headers: new Headers({ 'content-type': 'text/plain', 'x-request-id': 'r' }) }))[0],
    ).toMatch(/content type "text\/plain" is not described/);
    expect(check.check(exchange({ headers: new Headers({ 'content-type': 'application/json' }) }))).toContain(
      'GET /v2/users/user_0001 → 200: no X-Request-Id',
    );
    const created = exchange({
      method: 'POST',
      url: 'http://plat.test/v2/organizations/org_1/teams',
      status: 201,
      headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'r', location: '/v2/nowhere/x' }),
      body: JSON.stringify({ id: 'team_1', organizationId: 'org_1', name: 'T', createdAt: '2026-01-01T00:00:00.000Z' }),
    });
    expect(check.check(created).join('\n')).toMatch(/Location \/v2\/nowhere\/x leads to no GET/);
    const retry = exchange({
      headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'r', 'retry-after': '3' }),
    });
    expect(check.check(retry).join('\n')).toMatch(/a retry-after header that is not described/);
  });

  it('refuses a description stricter than the server: a request body the server accepted must satisfy it', () => {
    const check = conformance();
    const accepted = exchange({
      method: 'POST',
      url: 'http://plat.test/v2/organizations/org_1/teams',
      status: 201,
      requestType: 'application/json',
      requestBody: JSON.stringify({ name: 'T', colour: 'red' }),
      headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'r', location: '/v2/teams/team_1' }),
      body: JSON.stringify({ id: 'team_1', organizationId: 'org_1', name: 'T', createdAt: '2026-01-01T00:00:00.000Z' }),
    });
    expect(check.check(accepted).join('\n')).toMatch(/accepted request body must NOT have additional properties/);
  });
});
