import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { type RunningServer, startServer } from '../../src/platform/server.js';
import { testDatabase } from '../helpers/backend.js';
import { baseOf } from '../helpers/internals.js';
import { send, testPlatform } from '../helpers/platform.js';

/**
 * The request sequences Okta and Microsoft Entra ID send, replayed over HTTP against a real `plat serve` (on SQLite,
 * and on PostgreSQL in the PostgreSQL run). The bodies are theirs, from Okta's "SCIM 2.0 protocol reference" and its
 * SPEC test suite, and from Microsoft's "Tutorial: develop a SCIM endpoint" and "Known issues with SCIM 2.0
 * compliance" (both the default dialect and `aadOptscim062020`); the ids are the ones this server answered.
 */
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

interface Step {
  method: string;
  /** Below the SCIM base URL; `$name` is replaced by a value an earlier step saved. */
  path: string;
  body?: unknown;
  status: number;
  /** Saves the answer's `id` under this name. */
  save?: string;
  /** What the answer must hold. */
  expect?: Record<string, unknown>;
}

let dir: string;
let server: RunningServer;
let orgId: string;
let token: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plat-scim-replay-'));
  server = await startServer({
    ...(await testDatabase(join(dir, 'plat.db'))),
    port: 0,
    logger: () => {},
    limits: { enabled: false },
  });
  const boot = await bootstrap(baseOf(server.platform), { orgName: 'Acme', email: 'owner@acme.test' });
  orgId = boot.organizationId;
  for (const domain of ['okta.local', 'contoso.com']) await server.platform.admin.verifyDomain(orgId, domain);
  const made = await send((r) => fetch(r), server.url, boot.apiKey, 'POST', `/organizations/${orgId}/scim/tokens`, {
    body: { name: 'IdP' },
  });
  token = made.body.token;
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function replay(steps: Step[]): Promise<Record<string, string>> {
  const saved: Record<string, string> = {};
  const fill = (text: string) => text.replace(/\$(\w+)/g, (_, name: string) => saved[name] ?? `$${name}`);
  for (const [i, step] of steps.entries()) {
    const path = fill(step.path);
    const body = step.body === undefined ? undefined : JSON.parse(fill(JSON.stringify(step.body)));
    const r = await send((req) => fetch(req), server.url, null, step.method, `/organizations/${orgId}/scim${path}`, {
      body,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/scim+json',
        ...(body !== undefined && { 'content-type': 'application/scim+json; charset=utf-8' }),
      },
    });
    const where = `step ${i + 1}: ${step.method} ${path} → ${r.status} ${JSON.stringify(r.body)}`;
    expect(r.status, where).toBe(step.status);
    if (step.save) saved[step.save] = r.body.id;
    if (step.expect) expect(r.body, where).toMatchObject(JSON.parse(fill(JSON.stringify(step.expect))));
  }
  return saved;
}

const q = (filter: string) => encodeURIComponent(filter);

describe('replayed against plat serve', () => {
  it("Okta's sequence: SPEC tests, then a user's and a group's lifecycle", async () => {
    const user = {
      schemas: [USER],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    };
    const saved = await replay([
      { method: 'GET', path: '/ServiceProviderConfig', status: 200, expect: { patch: { supported: true } } },
      { method: 'GET', path: '/ResourceTypes', status: 200 },
      { method: 'GET', path: '/Users?count=1&startIndex=1', status: 200, expect: { itemsPerPage: 1, startIndex: 1 } },
      {
        method: 'GET',
        path: `/Users?filter=${q('userName eq "invalid-user@okta.local"')}`,
        status: 200,
        expect: { totalResults: 0 },
      },
      { method: 'GET', path: '/Users/010101010101010101', status: 404 },
      {
        method: 'GET',
        path: `/Users?filter=${q('userName eq "test.user@okta.local"')}&startIndex=1&count=100`,
        status: 200,
        expect: { totalResults: 0 },
      },
      {
        method: 'POST',
        path: '/Users',
        body: user,
        status: 201,
        save: 'user',
        expect: { userName: 'test.user@okta.local', active: true, locale: 'en-US' },
      },
      {
        method: 'GET',
        path: '/Users/$user',
        status: 200,
        expect: { id: '$user', name: { givenName: 'Test', familyName: 'User' } },
      },
      { method: 'POST', path: '/Users', body: user, status: 409, expect: { scimType: 'uniqueness' } },
      {
        method: 'GET',
        path: `/Users?filter=${q('userName eq "TEST.USER@OKTA.LOCAL"')}`,
        status: 200,
        expect: { totalResults: 1, Resources: [{ id: '$user' }] },
      },
      { method: 'GET', path: '/Users?startIndex=1&count=100', status: 200, expect: { totalResults: 2 } },
      {
        method: 'PUT',
        path: '/Users/$user',
        body: { ...user, id: '$user', name: { givenName: 'Another', familyName: 'User' }, displayName: 'Another User' },
        status: 200,
        expect: { displayName: 'Another User', name: { givenName: 'Another' } },
      },
      {
        method: 'PATCH',
        path: '/Users/$user',
        body: { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] },
        status: 200,
        expect: { active: false },
      },
      {
        method: 'PATCH',
        path: '/Users/$user',
        body: { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: true } }] },
        status: 200,
        expect: { active: true },
      },
      {
        method: 'GET',
        path: `/Groups?filter=${q('displayName eq "Test SCIMv2"')}`,
        status: 200,
        expect: { totalResults: 0 },
      },
      {
        method: 'POST',
        path: '/Groups',
        body: { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] },
        status: 201,
        save: 'group',
      },
      { method: 'GET', path: '/Groups?startIndex=1&count=100', status: 200, expect: { totalResults: 1 } },
      { method: 'GET', path: '/Groups/$group', status: 200, expect: { displayName: 'Test SCIMv2', members: [] } },
      {
        method: 'PATCH',
        path: '/Groups/$group',
        body: {
          schemas: [PATCH],
          Operations: [{ op: 'replace', value: { id: '$group', displayName: 'Test SCIMv2 renamed' } }],
        },
        status: 200,
        expect: { displayName: 'Test SCIMv2 renamed' },
      },
      {
        method: 'PATCH',
        path: '/Groups/$group',
        body: {
          schemas: [PATCH],
          Operations: [{ op: 'add', path: 'members', value: [{ value: '$user', display: 'test.user@okta.local' }] }],
        },
        status: 200,
        expect: { members: [{ value: '$user' }] },
      },
      {
        method: 'PATCH',
        path: '/Groups/$group',
        body: { schemas: [PATCH], Operations: [{ op: 'remove', path: 'members[value eq "$user"]' }] },
        status: 200,
        expect: { members: [] },
      },
      {
        method: 'PUT',
        path: '/Groups/$group',
        body: {
          schemas: [GROUP],
          id: '$group',
          displayName: 'Test SCIMv2',
          members: [{ value: '$user', display: 'test.user@okta.local' }],
        },
        status: 200,
        expect: { displayName: 'Test SCIMv2', members: [{ value: '$user' }] },
      },
      { method: 'DELETE', path: '/Groups/$group', status: 204 },
      { method: 'GET', path: '/Groups/$group', status: 404 },
    ]);
    // The member is the platform's: active, with the name the last PUT gave.
    const member = await baseOf(server.platform).stores.users.get(orgId, saved.user as string);
    expect(member).toMatchObject({
      email: 'test.user@okta.local',
      name: 'Another User',
      status: 'active',
      role: 'member',
    });
  });

  it("Microsoft Entra ID's sequence, in both of its PATCH dialects", async () => {
    const saved = await replay([
      {
        method: 'GET',
        path: `/Users?filter=${q('userName eq "non-existent user"')}`,
        status: 200,
        expect: { totalResults: 0 },
      },
      { method: 'GET', path: '/Schemas', status: 200 },
      {
        method: 'POST',
        path: '/Users',
        body: {
          schemas: [USER, ENTERPRISE],
          externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
          userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1@contoso.com',
          active: true,
          addresses: [{ primary: true, type: 'work', country: 'US' }],
          displayName: 'Test User',
          emails: [
            { primary: true, type: 'work', value: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1@contoso.com' },
          ],
          meta: { resourceType: 'User' },
          name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
          title: 'Manager',
          [ENTERPRISE]: { department: 'Finance', employeeNumber: '1' },
        },
        status: 201,
        save: 'user',
        expect: { [ENTERPRISE]: { department: 'Finance', employeeNumber: '1' }, title: 'Manager' },
      },
      {
        method: 'GET',
        path: `/Users?filter=${q('emails[type eq "work"].value eq "test_user_ab6490ee-1e48-479e-a20b-2d77186b5dd1@contoso.com"')}`,
        status: 200,
        expect: { totalResults: 1 },
      },
      {
        method: 'GET',
        path: `/Users?filter=${q('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`,
        status: 200,
        expect: { totalResults: 1 },
      },
      // The value unquoted, as Entra sent it in its early dialect.
      {
        method: 'GET',
        path: `/Users?filter=${q('externalId eq 0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef')}`,
        status: 200,
        expect: { totalResults: 1 },
      },
      { method: 'GET', path: `/Users?filter=${q('externalId eq jyoung')}`, status: 200, expect: { totalResults: 0 } },
      {
        // The default dialect: capitalised operations, a boolean as a string.
        method: 'PATCH',
        path: '/Users/$user',
        body: {
          schemas: [PATCH],
          Operations: [
            { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
            { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
            { op: 'Add', path: `${ENTERPRISE}:manager`, value: '$user' },
          ],
        },
        status: 200,
        expect: { name: { familyName: 'updatedFamilyName' }, [ENTERPRISE]: { manager: { value: '$user' } } },
      },
      {
        method: 'PATCH',
        path: '/Users/$user',
        body: { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] },
        status: 200,
        expect: { active: false },
      },
      {
        // aadOptscim062020: lower-case operations, a path-less replace keyed by paths.
        method: 'PATCH',
        path: '/Users/$user',
        body: {
          schemas: [PATCH],
          Operations: [
            {
              op: 'replace',
              value: { active: true, 'name.givenName': 'Fiona', [`${ENTERPRISE}:department`]: 'Sales' },
            },
          ],
        },
        status: 200,
        expect: { active: true, name: { givenName: 'Fiona' }, [ENTERPRISE]: { department: 'Sales' } },
      },
      {
        method: 'POST',
        path: '/Users',
        body: '{ "acve": tre, ... }',
        status: 400,
        expect: { scimType: 'invalidSyntax' },
      },
      {
        method: 'GET',
        path: `/Groups?excludedAttributes=members&filter=${q('displayName eq "displayName"')}`,
        status: 200,
        expect: { totalResults: 0 },
      },
      {
        method: 'POST',
        path: '/Groups',
        body: {
          externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
          displayName: 'displayName',
          meta: { resourceType: 'Group' },
          schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
        },
        status: 201,
        save: 'group',
      },
      {
        method: 'GET',
        path: '/Groups/$group?excludedAttributes=members',
        status: 200,
        expect: { displayName: 'displayName' },
      },
      {
        method: 'PATCH',
        path: '/Groups/$group',
        body: {
          schemas: [PATCH],
          Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: '$user' }] }],
        },
        status: 200,
        expect: { members: [{ value: '$user' }] },
      },
      {
        method: 'PATCH',
        path: '/Groups/$group',
        body: {
          schemas: [PATCH],
          Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: '$user' }] }],
        },
        status: 200,
        expect: { members: [] },
      },
      {
        method: 'PATCH',
        path: '/Groups/$group',
        body: {
          schemas: [PATCH],
          Operations: [
            { op: 'Replace', path: 'displayName', value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' },
          ],
        },
        status: 200,
      },
      { method: 'DELETE', path: '/Groups/$group', status: 204 },
      { method: 'DELETE', path: '/Users/$user', status: 204 },
      { method: 'GET', path: '/Users/$user', status: 404 },
    ]);
    expect(await baseOf(server.platform).stores.users.get(orgId, saved.user as string)).toBeUndefined();
  });
});

describe('the SCIM bucket', () => {
  it("is the organization's own: a first sync goes on where the plan's bucket would refuse", async () => {
    const t = await testPlatform({ limits: { enabled: true } });
    expect((await t.call('PATCH', `/organizations/${t.orgId}`, { body: { plan: 'free' } })).status).toBe(200);
    const made = await t.call('POST', `/organizations/${t.orgId}/scim/tokens`, { body: { name: 'IdP' } });
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const r = await t.call('GET', `/organizations/${t.orgId}/scim/Users?count=1`, {
        key: null,
        headers: { authorization: `Bearer ${made.body.token}` },
      });
      statuses.push(r.status);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The plan's bucket (free: a burst of 10) ran dry meanwhile for the API.
    const api: number[] = [];
    for (let i = 0; i < 12; i++) api.push((await t.call('GET', `/organizations/${t.orgId}/users`)).status);
    expect(api).toContain(429);
  });

  it("holds a burst of 500, then refuses 429 in SCIM's own form with Retry-After (the declared `scim` policy)", async () => {
    const t = await testPlatform({ limits: { enabled: true } });
    const made = await t.call('POST', `/organizations/${t.orgId}/scim/tokens`, { body: { name: 'IdP' } });
    const list = () =>
      t.call('GET', `/organizations/${t.orgId}/scim/Users?count=1`, {
        key: null,
        headers: { authorization: `Bearer ${made.body.token}` },
      });
    const first = await list();
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3000'); // a minute's worth
    expect(first.headers.get('x-ratelimit-remaining')).toBe('499');
    // The test's clock stands still: nothing refills.
    for (let i = 1; i < 500; i++) expect((await list()).status).toBe(200);
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/scim+json');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '429',
      detail: expect.stringContaining("the organization's SCIM rate limit is reached"),
    });
  });
});
