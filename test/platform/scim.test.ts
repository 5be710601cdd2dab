import { describe, expect, it } from 'vitest';
import { newRefreshToken } from '../../src/platform/operations/auth.js';
import { dbCount } from '../helpers/db.js';
import { baseOf } from '../helpers/internals.js';
import { testPlatform } from '../helpers/platform.js';
import { createSession } from '../helpers/sessions.js';
import { tokenRequest } from './auth/helpers.js';

/**
 * The SCIM 2.0 service provider (docs/scim.md): a SCIM token of the organization provisions members and teams; the
 * shapes Okta and Microsoft Entra ID send; deactivation revokes everything at once; owners are never deprovisioned.
 */
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

async function world() {
  const t = await testPlatform();
  await t.platform.admin.verifyDomain(t.orgId, 'acme.test');
  const made = await t.call('POST', `/organizations/${t.orgId}/scim/tokens`, { body: { name: 'Okta' } });
  const token = made.body.token as string;
  const scim = (method: string, path: string, body?: unknown, opts: { token?: string; type?: string } = {}) =>
    t.call(method, `/organizations/${t.orgId}/scim${path}`, {
      key: null,
      body,
      headers: {
        authorization: `Bearer ${opts.token ?? token}`,
        ...(body !== undefined && { 'content-type': opts.type ?? 'application/scim+json' }),
      },
    });
  return { t, token, tokenId: made.body.id as string, scim };
}

const okta = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER],
  userName,
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ primary: true, value: userName, type: 'work' }],
  displayName: 'Ada Lovelace',
  externalId: '00u1ab2cd3',
  active: true,
  ...extra,
});

describe('SCIM authentication', () => {
  it('takes a SCIM token of the organization only: none, an API key, a made-up token or another’s is a 401', async () => {
    const { t, scim } = await world();
    const other = await t.otherOrg();
    const theirs = await t.call('POST', `/organizations/${other.orgId}/scim/tokens`, {
      body: { name: 'theirs' },
      key: other.key,
    });
    const cases: [string, Record<string, string>][] = [
      ['none', {}],
      ['API key as bearer', { authorization: `Bearer ${t.ownerKey}` }],
      ['made up', { authorization: `Bearer scim_${'a'.repeat(43)}` }],
      ['another organization’s', { authorization: `Bearer ${theirs.body.token}` }],
    ];
    for (const [name, headers] of cases) {
      const r = await t.call('GET', `/organizations/${t.orgId}/scim/Users`, { key: null, headers });
      expect(r.status, name).toBe(401);
      expect(r.headers.get('content-type')).toBe('application/scim+json');
      expect(r.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });
    }
    // The API key works on the API, not here; the SCIM token works here, not on the API.
    const { token } = await world().then((w) => ({ token: w.token }));
    expect(
      (
        await t.call('GET', `/organizations/${t.orgId}/users`, {
          key: null,
          headers: { authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(401);
    expect((await scim('GET', '/ServiceProviderConfig')).status).toBe(200);
  });

  it('stops working the moment it is revoked, and records when it was last used', async () => {
    const { t, scim, tokenId } = await world();
    expect((await scim('GET', '/Users')).status).toBe(200);
    const listed = await t.call('GET', `/organizations/${t.orgId}/scim/tokens/${tokenId}`);
    expect(listed.body.lastUsedAt).toBe('2026-01-01T00:00:00.000Z');
    await t.call('DELETE', `/organizations/${t.orgId}/scim/tokens/${tokenId}`);
    expect((await scim('GET', '/Users')).status).toBe(401);
  });
});

describe('SCIM Users (Okta’s sequence)', () => {
  it('looks up, creates, reads, replaces and deactivates a member', async () => {
    const { t, scim, tokenId } = await world();
    // Okta asks whether the user exists first: an empty list.
    const none = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "ada@acme.test"')}&startIndex=1&count=100`,
    );
    expect(none.status).toBe(200);
    expect(none.body).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    const created = await scim('POST', '/Users', okta('ada@acme.test'));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.headers.get('location')).toBe(`http://plat.test/v2/organizations/${t.orgId}/scim/Users/${id}`);
    expect(created.body).toMatchObject({
      schemas: [USER],
      id,
      externalId: '00u1ab2cd3',
      userName: 'ada@acme.test',
      name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' },
      displayName: 'Ada Lovelace',
      emails: [{ primary: true, value: 'ada@acme.test', type: 'work' }],
      active: true,
      meta: { resourceType: 'User', location: `http://plat.test/v2/organizations/${t.orgId}/scim/Users/${id}` },
    });
    // A member, active and verified, role member; no mail sent; an event by the token.
    const user = await t.call('GET', `/users/${id}`);
    expect(user.body).toMatchObject({
      email: 'ada@acme.test',
      name: 'Ada Lovelace',
      role: 'member',
      status: 'active',
      emailVerified: true,
    });
    expect(await dbCount(t.platform, 'outbox')).toBe(0);
    const events = await t.call('GET', `/organizations/${t.orgId}/events?type=user.provisioned`);
    expect(events.body.data[0]).toMatchObject({
      actor: { type: 'scim_token', id: tokenId },
      target: { type: 'user', id },
    });
    // Found again by userName in any case (Okta's test sends it upper-cased) and by id.
    const found = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "ADA@ACME.TEST"')}`);
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0].id).toBe(id);
    expect((await scim('GET', `/Users/${id}`)).body).toEqual(created.body);
    // Twice is a uniqueness conflict; a domain not verified is an invalid value.
    const again = await scim('POST', '/Users', okta('Ada@acme.test'));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    const elsewhere = await scim('POST', '/Users', okta('eve@elsewhere.test'));
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toMatchObject({
      scimType: 'invalidValue',
      detail: expect.stringContaining('elsewhere.test is not a verified domain'),
    });
    // Okta pushes a profile change as a PUT of the whole user.
    const put = await scim(
      'PUT',
      `/Users/${id}`,
      okta('ada@acme.test', { name: { givenName: 'Ada', familyName: 'King' }, displayName: 'Ada King' }),
    );
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ displayName: 'Ada King', name: { familyName: 'King' }, active: true });
    // Okta deactivates with a path-less replace.
    const off = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await t.call('GET', `/users/${id}`)).body.status).toBe('suspended');
    const on = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: true } }],
    });
    expect(on.body.active).toBe(true);
    expect((await t.call('GET', `/users/${id}`)).body.status).toBe('active');
    // Unknown ids are 404s, whatever their shape.
    expect((await scim('GET', '/Users/010101010101')).status).toBe(404);
  });

  it('revokes at once the API keys, sessions and refresh tokens of a member it deactivates', async () => {
    const { t, scim } = await world();
    const id = (await scim('POST', '/Users', okta('max@acme.test'))).body.id as string;
    const key = await t.keyFor(id);
    expect((await t.call('GET', '/auth/whoami', { key })).status).toBe(200);
    const session = await createSession(t as never, id, { orgId: t.orgId });
    const refreshToken = await newRefreshToken(baseOf(t.platform), session, 'plat-cli', ['users:read']);
    const refresh = () =>
      tokenRequest(t.platform.fetch, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: 'plat-cli',
      });
    const first = await refresh();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const off = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.status).toBe(200);
    expect((await t.call('GET', '/auth/whoami', { key })).status).toBe(401);
    // The refresh token the first refresh rotated to is refused too: its session was revoked with the member.
    const rotated = await tokenRequest(t.platform.fetch, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: 'plat-cli',
    });
    expect(rotated.status).toBe(400);
    expect(rotated.body.error).toBe('invalid_grant');
    const sessions = await t.call('GET', `/users/${id}/sessions`);
    expect(sessions.body.data.filter((s: any) => s.id === session && s.revokedAt === null)).toEqual([]);
  });

  it('never suspends nor removes an owner (403)', async () => {
    const { t, scim } = await world();
    const off = await scim('PATCH', `/Users/${t.ownerId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.status).toBe(403);
    expect(off.body.detail).toMatch(/owners are never suspended through SCIM/);
    expect((await scim('DELETE', `/Users/${t.ownerId}`)).status).toBe(403);
    expect((await t.call('GET', `/users/${t.ownerId}`)).body.status).toBe('active');
  });
});

describe('SCIM Users (Microsoft Entra ID’s shapes)', () => {
  it('creates with the Enterprise extension, patches paths, filters by externalId, deletes', async () => {
    const { t, scim } = await world();
    const created = await scim('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: 'b2f8-entra',
      userName: 'grace@acme.test',
      active: true,
      displayName: 'Grace Hopper',
      emails: [{ primary: true, type: 'work', value: 'grace@acme.test' }],
      name: { formatted: 'Grace Hopper', familyName: 'Hopper', givenName: 'Grace' },
      [ENTERPRISE]: { department: 'Navy', employeeNumber: '701' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body[ENTERPRISE]).toEqual({ department: 'Navy', employeeNumber: '701' });
    expect((await t.call('GET', `/users/${id}`)).body.metadata).toEqual({ department: 'Navy', employeeNumber: '701' });
    const byExternal = await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "b2f8-entra"')}`);
    expect(byExternal.body.Resources.map((r: any) => r.id)).toEqual([id]);
    const patched = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Rear Admiral Hopper' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'grace@acme.test' },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Computing' },
        { op: 'Add', path: `${ENTERPRISE}:manager`, value: 'user_boss' },
        { op: 'Remove', path: `${ENTERPRISE}:employeeNumber` },
      ],
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.displayName).toBe('Rear Admiral Hopper');
    expect((await t.call('GET', `/users/${id}`)).body.metadata).toEqual({
      department: 'Computing',
      manager: 'user_boss',
    });
    const filters = [
      'emails[type eq "work"].value eq "grace@acme.test"',
      'displayName sw "rear" and active eq true',
      'userName co "grace" or externalId eq "nobody"',
      'not (active eq false) and not (userName eq "owner@acme.test")',
      'externalId pr',
    ];
    for (const f of filters) {
      const r = await scim('GET', `/Users?filter=${encodeURIComponent(f)}`);
      expect(
        r.body.Resources.map((u: any) => u.id),
        f,
      ).toEqual([id]);
    }
    const bad = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.scimType).toBe('invalidFilter');
    expect((await scim('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await t.call('GET', `/users/${id}`)).status).toBe(404);
    expect((await scim('GET', `/Users/${id}`)).status).toBe(404);
  });

  it('pages an unfiltered list in the order members joined, counting all, with what SCIM said of each', async () => {
    const { t, scim } = await world();
    // Made in turn, a second apart, named out of alphabetical order: listed in the order they joined.
    for (const n of [3, 1, 2]) {
      t.clock.advance(1000);
      await scim('POST', '/Users', okta(`p${n}@acme.test`, { externalId: `x${n}` }));
    }
    const whole = await scim('GET', '/Users?startIndex=1&count=100');
    expect(whole.body.Resources.map((r: any) => [r.userName, r.externalId])).toEqual([
      ['owner@acme.test', undefined],
      ['p3@acme.test', 'x3'],
      ['p1@acme.test', 'x1'],
      ['p2@acme.test', 'x2'],
    ]);
    const page = await scim('GET', '/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources).toEqual(whole.body.Resources.slice(1, 3));
    expect((await scim('GET', '/Users?startIndex=4&count=100')).body.Resources).toEqual(whole.body.Resources.slice(3));
    expect((await scim('GET', '/Users?startIndex=9')).body).toMatchObject({ totalResults: 4, itemsPerPage: 0 });
    expect((await scim('GET', '/Users?count=0')).body).toMatchObject({ totalResults: 4, itemsPerPage: 0 });
    expect((await t.call('GET', `/organizations/${t.orgId}/users`)).body.pagination.total).toBe(4);
  });

  it('pages with startIndex and count, counting every match', async () => {
    const { scim } = await world();
    for (const n of [1, 2, 3]) await scim('POST', '/Users', okta(`u${n}@acme.test`, { externalId: `x${n}` }));
    const page = await scim('GET', `/Users?filter=${encodeURIComponent('userName sw "u"')}&startIndex=2&count=1`);
    expect(page.body).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
    expect(page.body.Resources[0].userName).toBe('u2@acme.test');
  });
});

describe('SCIM Groups', () => {
  async function withPeople() {
    const w = await world();
    const ids: string[] = [];
    for (const n of ['a', 'b', 'c'])
      ids.push((await w.scim('POST', '/Users', okta(`${n}@acme.test`, { externalId: n }))).body.id);
    return { ...w, ids };
  }

  it('creates a team with members, adds and removes them as Okta and Entra do, renames and deletes it', async () => {
    const { t, scim, ids } = await withPeople();
    const [a, b, c] = ids as [string, string, string];
    const created = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Engineering',
      externalId: 'grp-1',
      members: [{ value: a }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(id).toMatch(/^team_/);
    expect(created.body.members.map((m: any) => m.value)).toEqual([a]);
    // Okta: add with a value list; remove with a value filter path.
    await scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: b }, { value: c }] }],
    });
    await scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${a}"]` }],
    });
    // Entra: Remove with the path `members` and the ones to remove as the value.
    const entra = await scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Remove', path: 'members', value: [{ value: b }] },
        { op: 'Replace', path: 'displayName', value: 'Platform' },
      ],
    });
    expect(entra.status).toBe(200);
    expect(entra.body).toMatchObject({ displayName: 'Platform', members: [{ value: c }] });
    const members = await t.call('GET', `/teams/${id}/members`);
    expect(members.body.data.map((m: any) => m.user.id)).toEqual([c]);
    const byName = await scim(
      'GET',
      `/Groups?filter=${encodeURIComponent('displayName eq "platform"')}&excludedAttributes=members`,
    );
    expect(byName.body.Resources).toEqual([expect.objectContaining({ id, displayName: 'Platform' })]);
    expect(byName.body.Resources[0].members).toBeUndefined();
    expect((await scim('POST', '/Groups', { displayName: 'PLATFORM' })).status).toBe(409);
    const put = await scim('PUT', `/Groups/${id}`, { displayName: 'Platform', members: [{ value: a }, { value: b }] });
    expect(put.body.members.map((m: any) => m.value).sort()).toEqual([a, b].sort());
    const stranger = await scim('PATCH', `/Groups/${id}`, {
      Operations: [{ op: 'add', path: 'members', value: [{ value: 'user_nobody' }] }],
    });
    expect(stranger.status).toBe(400);
    expect((await scim('DELETE', `/Groups/${id}`)).status).toBe(204);
    expect((await t.call('GET', `/teams/${id}`)).status).toBe(404);
    expect((await t.call('GET', `/users/${a}`)).status).toBe(200);
  });

  it('pages an unfiltered list of groups oldest first, each with its members (or none, if asked)', async () => {
    const { t, scim, ids } = await withPeople();
    const [a, b, c] = ids as [string, string, string];
    const group = (displayName: string, members: string[]) =>
      scim('POST', '/Groups', {
        displayName,
        externalId: `ext-${displayName}`,
        members: members.map((value) => ({ value })),
      });
    for (const [name, members] of [
      ['One', [a]],
      ['Two', [b, c]],
      ['Three', []],
    ] as const) {
      t.clock.advance(1000);
      expect((await group(name, [...members])).status).toBe(201);
    }
    const whole = await scim('GET', '/Groups?startIndex=1&count=100');
    expect(
      whole.body.Resources.map((r: any) => [r.displayName, r.externalId, r.members.map((m: any) => m.value)]),
    ).toEqual([
      ['One', 'ext-One', [a]],
      ['Two', 'ext-Two', [b, c]],
      ['Three', 'ext-Three', []],
    ]);
    const page = await scim('GET', '/Groups?startIndex=2&count=1');
    expect(page.body).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
    expect(page.body.Resources).toEqual([whole.body.Resources[1]]);
    const bare = await scim('GET', '/Groups?startIndex=2&count=2&excludedAttributes=members');
    expect(bare.body).toMatchObject({ totalResults: 3, itemsPerPage: 2 });
    expect(bare.body.Resources.map((r: any) => [r.displayName, r.members])).toEqual([
      ['Two', undefined],
      ['Three', undefined],
    ]);
  });
});

describe('SCIM discovery', () => {
  it('describes what it supports, its resource types and its schemas', async () => {
    const { scim } = await world();
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 100 },
      bulk: { supported: false },
    });
    const types = await scim('GET', '/ResourceTypes');
    expect(types.body.Resources.map((r: any) => r.id)).toEqual(['User', 'Group']);
    const schemas = await scim('GET', '/Schemas');
    expect(schemas.body.Resources.map((s: any) => s.id)).toEqual([
      USER,
      ENTERPRISE,
      'urn:ietf:params:scim:schemas:core:2.0:Group',
    ]);
  });
});

describe('SCIM refuses what would harm the platform, and applies concurrent changes one after the other', () => {
  it('never lets a PATCH or a body reach an object prototype (400, nothing changed for anyone)', async () => {
    const { scim } = await world();
    const user = (await scim('POST', '/Users', okta('ada@acme.test'))).body.id as string;
    const group = (await scim('POST', '/Groups', { displayName: 'x' })).body.id as string;
    const values = [
      { '__proto__.userId': 'user_victim' },
      { 'urn:x:__proto__.userId': 'user_victim' },
      { 'constructor.prototype.userId': 'user_victim' },
      JSON.parse('{"__proto__": {"userId": "user_victim"}}'),
    ];
    for (const path of [`/Users/${user}`, `/Groups/${group}`]) {
      for (const value of values) {
        const r = await scim('PATCH', path, { schemas: [PATCH], Operations: [{ op: 'add', value }] });
        expect(r.status, `${path} ${JSON.stringify(value)}`).toBe(400);
      }
      const byPath = await scim('PATCH', path, {
        Operations: [{ op: 'add', path: 'constructor.prototype', value: 'x' }],
      });
      expect(byPath.status).toBe(400);
    }
    expect(({} as Record<string, unknown>).userId).toBeUndefined();
    const created = await scim(
      'POST',
      '/Users',
      JSON.parse('{"userName": "eve@acme.test", "__proto__": {"role": "owner"}}'),
    );
    expect(created.status).toBe(400);
  });

  it('answers 400, never 500, to malformed attributes: a name that is no object, null e-mails, deep nesting', async () => {
    const { scim } = await world();
    const cases: unknown[] = [
      okta('bob@acme.test', { name: 'Bob' }),
      okta('bob@acme.test', { emails: [null, 'bob@acme.test'] }),
      okta('bob@acme.test', { deep: JSON.parse(`${'['.repeat(3000)}${']'.repeat(3000)}`) }),
    ];
    for (const body of cases) expect((await scim('POST', '/Users', body)).status).toBe(400);
    const id = (await scim('POST', '/Users', okta('bob@acme.test'))).body.id as string;
    const filtered = await scim('PATCH', `/Users/${id}`, {
      Operations: [{ op: 'replace', path: 'emails[type ne "home"].value', value: 'bob@acme.test' }],
    });
    expect(filtered.status).toBe(200);
  });

  it('keeps every member four concurrent PATCHes add to one group', async () => {
    const { t, scim } = await world();
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4]) ids.push((await scim('POST', '/Users', okta(`p${n}@acme.test`))).body.id);
    const group = (await scim('POST', '/Groups', { displayName: 'All' })).body.id as string;
    const answers = await Promise.all(
      ids.map((value) =>
        scim('PATCH', `/Groups/${group}`, { Operations: [{ op: 'add', path: 'members', value: [{ value }] }] }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const members = await t.call('GET', `/teams/${group}/members`);
    expect(members.body.data.map((m: any) => m.user.id).sort()).toEqual([...ids].sort());
  });

  it('keeps a member deactivated when a rename races the deactivation, and when a PATCH removes `active`', async () => {
    const { t, scim } = await world();
    const id = (await scim('POST', '/Users', okta('race@acme.test'))).body.id as string;
    const rename = (name: string) =>
      scim('PATCH', `/Users/${id}`, { Operations: [{ op: 'replace', path: 'displayName', value: name }] });
    await Promise.all([
      rename('One'),
      scim('PATCH', `/Users/${id}`, { Operations: [{ op: 'replace', value: { active: false } }] }),
      rename('Two'),
      rename('Three'),
    ]);
    expect((await t.call('GET', `/users/${id}`)).body.status).toBe('suspended');
    await scim('PATCH', `/Users/${id}`, { Operations: [{ op: 'remove', path: 'active' }] });
    expect((await t.call('GET', `/users/${id}`)).body.status).toBe('suspended');
  });

  it('makes a member created inactive active — not pending — once the directory activates them', async () => {
    const { t, scim } = await world();
    const id = (await scim('POST', '/Users', okta('later@acme.test', { active: false }))).body.id as string;
    expect((await t.call('GET', `/users/${id}`)).body.status).toBe('suspended');
    await scim('PATCH', `/Users/${id}`, { Operations: [{ op: 'replace', value: { active: true } }] });
    expect((await t.call('GET', `/users/${id}`)).body.status).toBe('active');
    const key = await t.keyFor(id);
    expect((await t.call('GET', '/auth/whoami', { key })).status).toBe(200);
  });

  it('provisions in verified domains only: a legacy claim, never proven, is refused', async () => {
    const { t, scim } = await world();
    await baseOf(t.platform).stores.domains.insert({
      id: 'dom_legacy9',
      organizationId: t.orgId,
      domain: 'old.test',
      status: 'legacy',
      token: '00112233445566778899aabbccddeeff',
      createdAt: '2026-01-01T00:00:00.000Z',
      verifiedAt: null,
    });
    const r = await scim('POST', '/Users', okta('someone@old.test'));
    expect(r.status).toBe(400);
    expect(r.body.scimType).toBe('invalidValue');
  });

  it('finds a group by a member (members eq, as Entra asks), with or without its members in the answer', async () => {
    const { scim } = await world();
    const user = (await scim('POST', '/Users', okta('m@acme.test'))).body.id as string;
    const group = (await scim('POST', '/Groups', { displayName: 'G', members: [{ value: user }] })).body.id as string;
    await scim('POST', '/Groups', { displayName: 'Other' });
    for (const filter of [`id eq "${group}" and members eq "${user}"`, `members[value eq "${user}"]`]) {
      for (const extra of ['', '&excludedAttributes=members']) {
        const r = await scim('GET', `/Groups?filter=${encodeURIComponent(filter)}${extra}`);
        expect(
          r.body.Resources.map((g: any) => g.id),
          `${filter} ${extra}`,
        ).toEqual([group]);
        if (extra) expect(r.body.Resources[0].members).toBeUndefined();
      }
    }
  });

  it('forgets what SCIM said of a member the API removes', async () => {
    const { t, scim } = await world();
    const id = (await scim('POST', '/Users', okta('gone@acme.test'))).body.id as string;
    expect((await t.call('GET', `/organizations/${t.orgId}/scim`)).body.users).toBe(1);
    expect((await t.call('DELETE', `/users/${id}`)).status).toBe(204);
    expect((await t.call('GET', `/organizations/${t.orgId}/scim`)).body.users).toBe(0);
  });
});
