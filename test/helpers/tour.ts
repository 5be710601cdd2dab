import { expect } from 'vitest';
import type { ApiRoute, RouteDef } from '../../src/platform/http/route.js';
import { ROUTES } from '../../src/platform/http/routes/index.js';
import type { Platform } from '../../src/platform/index.js';
import { samlMetadata } from './idp-documents.js';
import { givenTotpFactor } from './mfa.js';
import type { Reply } from './platform.js';
import { createSession } from './sessions.js';

/** One of every resource in one organization, made through the API (the session through the store, as sign-in would). */
export interface Fixture {
  orgId: string;
  ownerId: string;
  /** A member who is in the project and the team. */
  userId: string;
  /** An organization member who is not in the project yet. */
  outsiderId: string;
  projectId: string;
  teamId: string;
  invitationId: string;
  keyId: string;
  sessionId: string;
  envName: string;
  ssoTestId: string;
  /** A domain the organization claimed and verified (its operator vouched: no DNS here). */
  domainId: string;
  scimTokenId: string;
  /** A webhook endpoint (to loopback: nothing is sent without a server) and a delivery of its test event. */
  webhookId: string;
  deliveryId: string;
  /** The member's authenticator-app factor. */
  factorId: string;
}

type Caller = (method: string, path: string, opts?: { body?: unknown }) => Promise<Reply>;

function ok(r: Reply, what: string): any {
  expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return r.body;
}

/** Builds the fixture with `call` acting as an owner of `orgId`. */
export async function buildFixture(
  call: Caller,
  t: { platform: Platform },
  orgId: string,
  ownerId: string,
  tag: string,
): Promise<Fixture> {
  const team = ok(await call('POST', `/organizations/${orgId}/teams`, { body: { name: `${tag} team` } }), 'team');
  const invited = ok(
    await call('POST', `/organizations/${orgId}/users`, {
      body: { email: `${tag}-member@example.test`, name: `${tag} member`, teams: [team.id] },
    }),
    'invite',
  );
  const outsider = ok(
    await call('POST', `/organizations/${orgId}/users`, { body: { email: `${tag}-outsider@example.test` } }),
    'invite 2',
  );
  const pending = ok(
    await call('POST', `/organizations/${orgId}/users`, { body: { email: `${tag}-pending@example.test` } }),
    'invite 3',
  );
  const project = ok(
    await call('POST', `/organizations/${orgId}/projects`, { body: { name: `${tag} project` } }),
    'project',
  );
  ok(
    await call('POST', `/projects/${project.id}/members`, { body: { userId: invited.userId, role: 'developer' } }),
    'member',
  );
  const key = ok(
    await call('POST', `/organizations/${orgId}/api-keys`, { body: { name: `${tag} key`, environment: 'live' } }),
    'key',
  );
  ok(
    await call('PUT', `/organizations/${orgId}/sso`, {
      body: {
        protocol: 'saml',
        provider: 'okta',
        metadataXml: samlMetadata({ entityId: 'https://idp.example', ssoUrl: 'https://idp.example/sso' }),
        attributeMapping: { email: 'mail' },
      },
    }),
    'sso',
  );
  const ssoTest = ok(await call('POST', `/organizations/${orgId}/sso/tests`), 'sso test');
  const domain = ok(
    await call('POST', `/organizations/${orgId}/domains`, { body: { domain: `${tag}.example.test` } }),
    'domain',
  );
  await t.platform.admin.verifyDomain(orgId, domain.domain);
  const scimToken = ok(
    await call('POST', `/organizations/${orgId}/scim/tokens`, { body: { name: `${tag} directory` } }),
    'scim token',
  );
  const webhook = ok(
    await call('POST', `/organizations/${orgId}/webhooks`, { body: { url: 'http://127.0.0.1:9/hooks' } }),
    'webhook',
  );
  const delivery = ok(await call('POST', `/webhooks/${webhook.id}/test`), 'webhook test');
  const sessionId = await createSession(t as never, invited.userId, { orgId });
  const { factorId } = await givenTotpFactor(t.platform, invited.userId);
  return {
    orgId,
    ownerId,
    userId: invited.userId,
    outsiderId: outsider.userId,
    projectId: project.id,
    teamId: team.id,
    invitationId: pending.id,
    keyId: key.id,
    sessionId,
    envName: 'staging',
    ssoTestId: ssoTest.id,
    domainId: domain.id,
    scimTokenId: scimToken.id,
    webhookId: webhook.id,
    deliveryId: delivery.id,
    factorId,
  };
}

/** A valid body for each write route, keyed `METHOD path`. */
export const EXAMPLE_BODIES: Record<string, (f: Fixture) => unknown> = {
  'POST /organizations': () => ({ name: 'Tour Org' }),
  'PATCH /organizations/{orgId}': () => ({ name: 'Renamed Org' }),
  'POST /organizations/{orgId}/users': () => ({ email: 'tour-new@example.test', name: 'New', role: 'member' }),
  'POST /organizations/{orgId}/users/batch': (f) => ({
    users: [
      { email: 'tour-batch@example.test', name: 'Batched', teams: [f.teamId], metadata: { source: 'hr' } },
      { email: 'not an e-mail' },
    ],
  }),
  'PATCH /users/{userId}': () => ({ name: 'Renamed', metadata: { team: 'core' } }),
  'POST /organizations/{orgId}/teams': () => ({ name: 'Another team' }),
  'POST /teams/{teamId}/members': (f) => ({ userId: f.outsiderId }),
  'POST /organizations/{orgId}/projects': () => ({ name: 'Another project', settings: { autoScaling: true } }),
  'PATCH /projects/{projectId}': () => ({ description: 'Described', settings: { notificationsEnabled: false } }),
  'POST /projects/{projectId}/members': (f) => ({ userId: f.outsiderId, role: 'viewer' }),
  'PATCH /projects/{projectId}/members/{userId}': () => ({ role: 'admin' }),
  'POST /projects/{projectId}/environments': () => ({ name: 'qa', config: { LOG_LEVEL: 'debug' } }),
  'PATCH /projects/{projectId}/environments/{name}': () => ({ config: { API_URL: 'https://api.example', OLD: null } }),
  'POST /projects/{projectId}/environments/promote': () => ({ source: 'staging', target: 'production' }),
  'POST /organizations/{orgId}/api-keys': () => ({ name: 'ci', environment: 'live', permissions: ['projects:read'] }),
  'POST /organizations/{orgId}/domains': () => ({ domain: 'another.example.test' }),
  'POST /organizations/{orgId}/scim/tokens': () => ({ name: 'Entra ID' }),
  'POST /organizations/{orgId}/webhooks': () => ({ url: 'https://hooks.example.test/plat', events: ['user.invited'] }),
  'PATCH /webhooks/{webhookId}': () => ({ description: 'Billing', events: ['user.suspended'] }),
  'POST /auth/mfa/totp': () => ({ name: 'Phone' }),
  'POST /auth/mfa/totp/{factorId}/verify': () => ({ code: '123456' }),
  // Uploaded metadata: a configuration the platform can check without fetching anything.
  'PUT /organizations/{orgId}/sso': () => ({
    protocol: 'saml',
    provider: 'custom-saml',
    metadataXml: samlMetadata({ entityId: 'https://login.example', ssoUrl: 'https://login.example/sso' }),
    attributeMapping: { email: 'email', name: 'name' },
  }),
};

/** The concrete path of a route for a fixture's ids. */
export function pathFor(route: RouteDef, f: Fixture): string {
  const ids: Record<string, string> = {
    orgId: f.orgId,
    userId: f.userId,
    projectId: f.projectId,
    teamId: f.teamId,
    invitationId: f.invitationId,
    keyId: f.keyId,
    sessionId: f.sessionId,
    name: f.envName,
    testId: f.ssoTestId,
    domainId: f.domainId,
    tokenId: f.scimTokenId,
    webhookId: f.webhookId,
    deliveryId: f.deliveryId,
    factorId: f.factorId,
  };
  return route.path.replace(/\{([^}]+)\}/g, (_, p: string) => {
    const id = ids[p];
    if (!id) throw new Error(`no fixture id for {${p}} in ${route.path}`);
    return id;
  });
}

/** Every authenticated JSON route of the API. */
export const API_ROUTES: ApiRoute[] = ROUTES.filter((r): r is ApiRoute => r.kind === 'api');

export function routeKey(r: RouteDef): string {
  return `${r.method} ${r.path}`;
}

/** The example body of a write route (and a failure naming the route if there is none). */
export function exampleBody(r: RouteDef, f: Fixture): unknown {
  if (!r.body) return undefined;
  const make = EXAMPLE_BODIES[routeKey(r)];
  if (!make) throw new Error(`add an example body for ${routeKey(r)} to test/helpers/tour.ts`);
  return make(f);
}
