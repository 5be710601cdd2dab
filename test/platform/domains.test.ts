import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { CERT_A, type DocumentServer, documentServer, samlMetadata } from '../helpers/idp-documents.js';
import { baseOf } from '../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../helpers/platform.js';

/**
 * Verified domains (docs/domains.md): a claim answers the TXT record that proves it; verification looks it up now,
 * through a real DNS server on loopback; the first organization to verify owns the domain; single sign-on takes
 * verified domains only, and loses one that is given up or taken.
 */
let dns: TestDnsServer;
let idp: DocumentServer;
beforeAll(async () => {
  dns = await startDnsServer();
  idp = await documentServer();
  idp.serve('/saml/metadata', {
    body: samlMetadata({ entityId: `${idp.url}/saml`, ssoUrl: `${idp.url}/saml/sso`, certs: [CERT_A] }),
  });
});
afterAll(async () => {
  await dns.close();
  await idp.close();
});

const platform = () => testPlatform({ dnsServer: dns.address });

async function claim(t: TestPlatform, domain: string, key?: string) {
  return t.call('POST', `/organizations/${t.orgId}/domains`, { body: { domain }, key });
}

function ssoBody(domains: string[]) {
  return {
    protocol: 'saml',
    provider: 'okta',
    enabled: true,
    metadataUrl: `${idp.url}/saml/metadata`,
    attributeMapping: { email: 'email' },
    domains,
  };
}

describe('claiming a domain', () => {
  it('answers 201, pending, with the TXT record to publish and a Location; listed and read back; an event', async () => {
    const t = await platform();
    const r = await claim(t, 'Claim-One.test');
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^dom_/),
      organizationId: t.orgId,
      domain: 'claim-one.test',
      status: 'pending',
      verification: {
        type: 'dns_txt',
        name: '_plat-challenge.claim-one.test',
        value: expect.stringMatching(/^plat-verification=[0-9a-f]{32}$/),
      },
      createdAt: '2026-01-01T00:00:00.000Z',
      verifiedAt: null,
    });
    expect(r.headers.get('location')).toBe(`/v2/domains/${r.body.id}`);
    expect((await t.call('GET', `/domains/${r.body.id}`)).body).toEqual(r.body);
    await claim(t, 'a-first.test');
    const list = await t.call('GET', `/organizations/${t.orgId}/domains`);
    expect(list.body.data.map((d: any) => d.domain)).toEqual(['a-first.test', 'claim-one.test']);
    const events = await t.call('GET', `/organizations/${t.orgId}/events?type=domain.created`);
    expect(events.body.data.at(-1)).toMatchObject({
      actor: { type: 'api_key' },
      target: { type: 'domain', id: r.body.id },
      data: { domain: 'claim-one.test' },
    });
  });

  it('refuses a second claim of the same domain (409), a malformed name (422), and a 51st domain (409)', async () => {
    const t = await platform();
    expect((await claim(t, 'twice.test')).status).toBe(201);
    const again = await claim(t, 'TWICE.test');
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe('this organization already claims twice.test');
    for (const bad of ['not a domain', 'localhost', '-x.test', 'a..test', `${'a'.repeat(64)}.test`]) {
      const r = await claim(t, bad);
      expect(r.status, bad).toBe(422);
      expect(r.body.error.details, bad).toEqual([{ field: 'domain', message: expect.any(String) }]);
    }
    for (let i = 1; i < 50; i++) expect((await claim(t, `d${i}.many.test`)).status).toBe(201);
    const over = await claim(t, 'one-too-many.test');
    expect(over.status).toBe(409);
    expect(over.body.error.message).toMatch(/at most 50 domains/);
    expect((await t.call('GET', `/organizations/${t.orgId}/domains`)).body.data).toHaveLength(50);
  });

  it('is for owners: an admin may not claim (403), a member may not list (403); 404 across organizations', async () => {
    const t = await platform();
    const admin = await t.addUser({ email: 'ada@acme.test', role: 'admin' });
    const member = await t.addUser({ email: 'max@acme.test', role: 'member' });
    expect((await claim(t, 'perm.test', admin.key)).status).toBe(403);
    expect((await t.call('GET', `/organizations/${t.orgId}/domains`, { key: member.key })).status).toBe(403);
    const mine = await claim(t, 'perm.test');
    expect((await t.call('GET', `/domains/${mine.body.id}`, { key: admin.key })).status).toBe(200);
    expect((await t.call('POST', `/domains/${mine.body.id}/verify`, { key: admin.key })).status).toBe(403);
    expect((await t.call('DELETE', `/domains/${mine.body.id}`, { key: admin.key })).status).toBe(403);
    const other = await t.otherOrg();
    for (const [method, path] of [
      ['GET', `/domains/${mine.body.id}`],
      ['POST', `/domains/${mine.body.id}/verify`],
      ['DELETE', `/domains/${mine.body.id}`],
    ] as const) {
      expect((await t.call(method, path, { key: other.key })).status, `${method} ${path}`).toBe(404);
    }
    expect((await t.call('GET', `/domains/${mine.body.id}`)).body.status).toBe('pending');
  });
});

describe('verifying a domain', () => {
  it('finds the record through the DNS server: verified, with the time and an event; verifying again asks nothing', async () => {
    const t = await platform();
    const c = (await claim(t, 'verify-me.test')).body;
    // A record of two character-strings is read as one string (RFC 7208 §3.3 has SPF do the same).
    const value: string = c.verification.value;
    dns.txt(c.verification.name, ['v=spf1 -all', [value.slice(0, 20), value.slice(20)]]);
    t.clock.advance(60_000);
    const r = await t.call('POST', `/domains/${c.id}/verify`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...c, status: 'verified', verifiedAt: '2026-01-01T00:01:00.000Z' });
    const asked = dns.asked.get('_plat-challenge.verify-me.test');
    expect(asked).toBeGreaterThan(0);
    expect((await t.call('POST', `/domains/${c.id}/verify`)).body.status).toBe('verified');
    expect(dns.asked.get('_plat-challenge.verify-me.test')).toBe(asked);
    const events = await t.call('GET', `/organizations/${t.orgId}/events?type=domain.verified`);
    expect(events.body.data).toEqual([
      expect.objectContaining({
        actor: { type: 'api_key', id: expect.any(String) },
        target: { type: 'domain', id: c.id },
        data: { domain: 'verify-me.test', method: 'dns' },
      }),
    ]);
  });

  it('answers 422 saying what was found: no record, other records, another claim’s value, a failing server', async () => {
    const t = await platform();
    const c = (await claim(t, 'not-yet.test')).body;
    const verify = () => t.call('POST', `/domains/${c.id}/verify`);
    const cases: [Parameters<TestDnsServer['txt']>[1] | undefined, RegExp][] = [
      [undefined, /^domain: no TXT record at _plat-challenge\.not-yet\.test$/],
      [
        ['google-site-verification=abc'],
        /no plat-verification= record at _plat-challenge\.not-yet\.test \(found 1 other TXT record\)/,
      ],
      [
        ['plat-verification=0123'],
        /_plat-challenge\.not-yet\.test has "plat-verification=0123", not the value of this claim/,
      ],
      ['servfail', /could not be looked up \(ESERVFAIL\): try again/],
    ];
    for (const [records, message] of cases) {
      if (records === undefined) dns.clear(c.verification.name);
      else dns.txt(c.verification.name, records);
      const r = await verify();
      expect(r.status, String(records)).toBe(422);
      expect(r.body.error.message).toMatch(message);
      expect(r.body.error.details).toEqual([{ field: 'domain', message: expect.any(String) }]);
    }
    expect((await t.call('GET', `/domains/${c.id}`)).body.status).toBe('pending');
    expect((await t.call('GET', `/organizations/${t.orgId}/events?type=domain.verified`)).body.data).toEqual([]);
  });

  it('gives the domain to the first organization to verify it: the other’s verify and new claims are 409', async () => {
    const t = await platform();
    const other = await t.otherOrg();
    const ours = (await claim(t, 'contested.test')).body;
    const theirs = (
      await t.call('POST', `/organizations/${other.orgId}/domains`, {
        body: { domain: 'contested.test' },
        key: other.key,
      })
    ).body;
    expect(theirs.status).toBe('pending');
    expect(theirs.verification.value).not.toBe(ours.verification.value);
    // Both records are published; ours verifies first.
    dns.txt('_plat-challenge.contested.test', [ours.verification.value, theirs.verification.value]);
    expect((await t.call('POST', `/domains/${ours.id}/verify`)).body.status).toBe('verified');
    const late = await t.call('POST', `/domains/${theirs.id}/verify`, { key: other.key });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toBe('contested.test is verified by another organization');
    const third = await t.call('POST', `/organizations/${other.orgId}/domains`, {
      body: { domain: 'sub.contested.test' },
      key: other.key,
    });
    expect(third.status).toBe(201);
    await t.call('DELETE', `/domains/${theirs.id}`, { key: other.key });
    const reclaim = await t.call('POST', `/organizations/${other.orgId}/domains`, {
      body: { domain: 'CONTESTED.test' },
      key: other.key,
    });
    expect(reclaim.status).toBe(409);
  });
});

describe('single sign-on on verified domains', () => {
  it('refuses a domain the organization has not verified (422 naming it), takes it once verified', async () => {
    const t = await platform();
    const c = (await claim(t, 'sso-dom.test')).body;
    const put = () => t.call('PUT', `/organizations/${t.orgId}/sso`, { body: ssoBody(['SSO-dom.test']) });
    const refused = await put();
    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toEqual([
      {
        field: 'domains.0',
        message: expect.stringContaining('sso-dom.test is not a verified domain of this organization'),
      },
    ]);
    expect((await t.call('GET', `/organizations/${t.orgId}/sso`)).status).toBe(404);
    dns.txt(c.verification.name, [c.verification.value]);
    expect((await t.call('POST', `/domains/${c.id}/verify`)).status).toBe(200);
    const saved = await put();
    expect(saved.status).toBe(200);
    expect(saved.body.domains).toEqual(['sso-dom.test']);
    // Another organization verifying nothing cannot name it either.
    const other = await t.otherOrg();
    const theirs = await t.call('PUT', `/organizations/${other.orgId}/sso`, {
      body: ssoBody(['sso-dom.test']),
      key: other.key,
    });
    expect(theirs.status).toBe(422);
  });

  it('drops a domain given up from the configuration, and routes it no more', async () => {
    const t = await platform();
    const base = baseOf(t.platform);
    const verified = await t.platform.admin.verifyDomain(t.orgId, 'gone.test');
    await t.platform.admin.verifyDomain(t.orgId, 'kept.test');
    expect(
      (await t.call('PUT', `/organizations/${t.orgId}/sso`, { body: ssoBody(['gone.test', 'kept.test']) })).status,
    ).toBe(200);
    expect((await base.stores.sso.enabledForDomain('gone.test'))?.organizationId).toBe(t.orgId);
    expect((await t.call('DELETE', `/domains/${verified.id}`)).status).toBe(204);
    expect((await t.call('GET', `/organizations/${t.orgId}/sso`)).body.domains).toEqual(['kept.test']);
    expect(await base.stores.sso.enabledForDomain('gone.test')).toBeUndefined();
    expect((await base.stores.sso.enabledForDomain('kept.test'))?.organizationId).toBe(t.orgId);
    const events = await t.call('GET', `/organizations/${t.orgId}/events?type=domain.deleted`);
    expect(events.body.data[0].data).toEqual({ domain: 'gone.test', status: 'verified', ssoDomainRemoved: true });
  });

  it('keeps a legacy domain routing until another organization verifies it, which takes it (and says so)', async () => {
    const t = await platform();
    const base = baseOf(t.platform);
    // What migration 10 makes of a single sign-on domain saved before domains were verified.
    await base.stores.domains.insert({
      id: 'dom_legacy1',
      organizationId: t.orgId,
      domain: 'old.test',
      status: 'legacy',
      token: '00112233445566778899aabbccddeeff',
      createdAt: base.now(),
      verifiedAt: null,
    });
    const saved = await t.call('PUT', `/organizations/${t.orgId}/sso`, { body: ssoBody(['old.test']) });
    expect(saved.status).toBe(200);
    expect((await base.stores.sso.enabledForDomain('old.test'))?.organizationId).toBe(t.orgId);
    expect((await t.call('GET', `/domains/dom_legacy1`)).body).toMatchObject({ status: 'legacy', verifiedAt: null });
    // The real owner of old.test proves it.
    const other = await t.otherOrg();
    const theirs = (
      await t.call('POST', `/organizations/${other.orgId}/domains`, { body: { domain: 'old.test' }, key: other.key })
    ).body;
    dns.txt('_plat-challenge.old.test', [theirs.verification.value]);
    expect((await t.call('POST', `/domains/${theirs.id}/verify`, { key: other.key })).body.status).toBe('verified');
    expect((await t.call('GET', `/domains/dom_legacy1`)).body).toMatchObject({ status: 'pending' });
    expect((await t.call('GET', `/organizations/${t.orgId}/sso`)).body.domains).toEqual([]);
    expect(await base.stores.sso.enabledForDomain('old.test')).toBeUndefined();
    const lost = await t.call('GET', `/organizations/${t.orgId}/events?type=domain.lost`);
    expect(lost.body.data).toEqual([
      expect.objectContaining({
        actor: { type: 'system', id: 'domain verification' },
        target: { type: 'domain', id: 'dom_legacy1' },
        data: { domain: 'old.test', reason: 'verified by another organization', ssoDomainRemoved: true },
      }),
    ]);
    // Now theirs: their single sign-on may name it, ours may not.
    expect(
      (await t.call('PUT', `/organizations/${other.orgId}/sso`, { body: ssoBody(['old.test']), key: other.key }))
        .status,
    ).toBe(200);
    expect((await t.call('PUT', `/organizations/${t.orgId}/sso`, { body: ssoBody(['old.test']) })).status).toBe(422);
  });
});

describe("the operator's word (plat local domains verify)", () => {
  it('verifies without DNS, by organization id or slug, making the claim if need be; an event by plat local', async () => {
    const t = await platform();
    const made = await t.platform.admin.verifyDomain('acme', 'Vouched.test');
    expect(made).toMatchObject({ organizationId: t.orgId, domain: 'vouched.test', status: 'verified' });
    const pending = (await claim(t, 'claimed-first.test')).body;
    const vouched = await t.platform.admin.verifyDomain(t.orgId, 'claimed-first.test');
    expect(vouched.id).toBe(pending.id);
    expect(vouched.status).toBe('verified');
    expect(dns.asked.get('_plat-challenge.vouched.test')).toBeUndefined();
    const events = await t.call('GET', `/organizations/${t.orgId}/events?type=domain.verified`);
    // Newest first.
    expect(events.body.data.map((e: any) => [e.actor, e.data])).toEqual([
      [
        { type: 'system', id: 'plat local' },
        { domain: 'claimed-first.test', method: 'operator' },
      ],
      [
        { type: 'system', id: 'plat local' },
        { domain: 'vouched.test', method: 'operator' },
      ],
    ]);
  });

  it('refuses a domain another organization verified (409), an unknown organization (404), a bad name (422)', async () => {
    const t = await platform();
    const other = await t.otherOrg();
    await t.platform.admin.verifyDomain(other.orgId, 'theirs.test');
    await expect(t.platform.admin.verifyDomain(t.orgId, 'theirs.test')).rejects.toMatchObject({
      code: 'conflict',
      message: 'theirs.test is verified by another organization',
    });
    await expect(t.platform.admin.verifyDomain('no-such-org', 'x.test')).rejects.toMatchObject({
      code: 'not_found',
      message: 'no organization no-such-org',
    });
    await expect(t.platform.admin.verifyDomain(t.orgId, 'not a domain')).rejects.toMatchObject({
      code: 'validation_error',
    });
    expect((await t.call('GET', `/organizations/${t.orgId}/domains`)).body.data).toEqual([]);
  });
});
