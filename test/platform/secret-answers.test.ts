import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/platform/http/openapi.js';
import { pipelineFor } from '../../src/platform/http/pipeline.js';
import type { RouteDef } from '../../src/platform/http/route.js';
import { ROUTES } from '../../src/platform/http/routes/index.js';
import { totpCode } from '../helpers/mfa.js';
import { testPlatform } from '../helpers/platform.js';
import { authorizePlatform, tokensFor, withToken } from './auth/helpers.js';

// An answer that holds a secret shown only once (docs/api.md, "Conventions") is sent with `Cache-Control: no-store`:
// no cache on its way, nor the client's, keeps the key, token, signing secret or recovery codes it carries.

const document = buildOpenApi(ROUTES) as any;
/** Field names that may hold a secret: each such field of an authenticated answer is a secret or named below. */
const SECRET_LIKE = /(secret|token|password|key|codes?|uri|url)$/i;
/** Fields of authenticated answers that match SECRET_LIKE and hold no secret. */
const NOT_SECRET = new Set([
  'apiKey', // whoami's: the key's record, not the key
  'tokens', // the SCIM status: a count
  'clientSecretSet', // whether an SSO configuration holds a client secret (never the secret)
  'code', // a batch item's error code
  'lastStatusCode', // a webhook delivery's last answer
  // Addresses: an avatar, a webhook endpoint, the SCIM base, SSO's metadata, sign-in and callback addresses.
  ...['avatarUrl', 'url', 'baseUrl', 'acsUrl', 'idpSsoUrl', 'metadataUrl', 'redirectUri', 'spMetadataUrl'],
  // The SSO test's sign-in link: its state is single-use and expires, the sign-in still needs the identity provider.
  'signInUrl',
]);
/** Every operation of the document. */
const operations: any[] = Object.values(document.paths as Record<string, Record<string, any>>)
  .flatMap((item) => Object.values(item))
  .filter((op) => op?.operationId);
/** An operation's success answer (its 2xx). */
const successOf = (op: any): any => Object.entries(op.responses ?? {}).find(([code]) => code.startsWith('2'))?.[1];

/** The property names anywhere in a JSON schema of the document, its references followed. */
function fieldsOf(schema: any): Set<string> {
  const names = new Set<string>();
  const seen = new Set<any>();
  const walk = (s: any) => {
    if (!s || typeof s !== 'object' || seen.has(s)) return;
    seen.add(s);
    if (typeof s.$ref === 'string')
      walk(
        s.$ref
          .split('/')
          .slice(1)
          .reduce((o: any, k: string) => o?.[k], document),
      );
    for (const name of Object.keys(s.properties ?? {})) names.add(name);
    for (const value of Object.values(s)) if (typeof value === 'object') walk(value);
  };
  walk(schema);
  return names;
}

/**
 * The authenticated operations whose success answer has a field that may hold a secret, and which those fields are.
 * Public operations answer for themselves (the token endpoint, the pages: their tests check their headers).
 */
function answeringSecrets(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const op of operations) {
    if (!op.security?.length) continue;
    const schema = successOf(op)?.content?.['application/json']?.schema;
    const fields = [...fieldsOf(schema)].filter((name) => SECRET_LIKE.test(name) && !NOT_SECRET.has(name));
    if (fields.length > 0) out[op.operationId] = fields.sort();
  }
  return out;
}

const declared = (ROUTES as readonly RouteDef[]).filter((r) => r.secret).map((r) => r.operationId);

describe('answers that hold a secret shown once', () => {
  it('are exactly the operations declared secret, and the document says they are not stored', () => {
    expect([...declared].sort()).toEqual([
      'createApiKey',
      'createScimToken',
      'createWebhook',
      'enrollTotp',
      'regenerateRecoveryCodes',
      'rotateWebhookSecret',
      'verifyTotp',
    ]);
    expect(Object.keys(answeringSecrets()).sort()).toEqual([...declared].sort());
    for (const op of operations.filter((o) => declared.includes(o.operationId))) {
      expect(Object.keys(successOf(op)?.headers ?? {}), op.operationId).toContain('Cache-Control');
    }
  });

  it('are declared on authenticated endpoints only: a public one sets its own headers', () => {
    const page = (ROUTES as readonly RouteDef[]).find((r) => r.kind === 'public') as RouteDef;
    expect(() => pipelineFor([...ROUTES, { ...page, path: '/elsewhere', secret: true }])).toThrow(
      `${page.operationId}: secret is for authenticated routes`,
    );
  });

  it('are sent with Cache-Control: no-store; the same records read back later are not', async () => {
    const t = await testPlatform();
    const key = await t.call('POST', `/organizations/${t.orgId}/api-keys`, {
      body: { name: 'ci', environment: 'live' },
    });
    expect(key.status).toBe(201);
    expect(key.headers.get('cache-control')).toBe('no-store');
    const read = await t.call('GET', `/api-keys/${key.body.id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('cache-control')).toBeNull();
    const scim = await t.call('POST', `/organizations/${t.orgId}/scim/tokens`, { body: { name: 'Okta' } });
    expect([scim.status, scim.headers.get('cache-control')]).toEqual([201, 'no-store']);
    const hook = await t.call('POST', `/organizations/${t.orgId}/webhooks`, {
      body: { url: 'https://hooks.example.com/in' },
    });
    expect([hook.status, hook.headers.get('cache-control')]).toEqual([201, 'no-store']);
    const rotated = await t.call('POST', `/webhooks/${hook.body.id}/rotate-secret`);
    expect([rotated.status, rotated.headers.get('cache-control')]).toEqual([200, 'no-store']);
    // A refusal holds no secret, and is not marked.
    const refused = await t.call('POST', `/organizations/${t.orgId}/api-keys`, {
      body: { name: '', environment: 'live' },
    });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('cache-control')).toBeNull();
  });

  it('include enrolling an authenticator app and confirming it', async () => {
    const t = await authorizePlatform();
    const { access_token } = await tokensFor(t);
    const started = await t.call('POST', '/auth/mfa/totp', { ...withToken(access_token), body: {} });
    expect([started.status, started.headers.get('cache-control')]).toEqual([201, 'no-store']);
    const verified = await t.call('POST', `/auth/mfa/totp/${started.body.factorId}/verify`, {
      ...withToken(access_token),
      body: { code: totpCode(started.body.secret, t.clock().getTime()) },
    });
    expect([verified.status, verified.headers.get('cache-control')]).toEqual([200, 'no-store']);
    // New recovery codes need a sign-in with the factor: test/platform/auth/mfa.test.ts checks their answer.
    const factors = await t.call('GET', `/users/${t.ownerId}/mfa`, withToken(access_token));
    expect([factors.status, factors.headers.get('cache-control')]).toEqual([200, null]);
  });
});
