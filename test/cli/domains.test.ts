import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { samlMetadata } from '../helpers/idp-documents.js';
import { cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';

/**
 * `plat domains` and `plat local domains verify` as a user meets them (docs/domains.md): each command a spawned `plat`,
 * verification through a real DNS server on loopback — named by PLAT_DNS_SERVER for the embedded platform, by
 * `plat serve --dns-server` for a served one.
 */
let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(async () => {
  cleanUpProcesses();
  await dns.close();
});

const plat = (env: Record<string, string>, argv: string[]) => startPlat(env, argv).done;

describe('plat domains', () => {
  it('claims a domain and prints the record to publish, verifies it once published, lists and removes it', async () => {
    const home = processHome('plat-domains');
    const env = { ...home, PLAT_DNS_SERVER: dns.address };
    const added = await plat(env, ['domains', 'add', 'Acme-Cli.test.', '--json']);
    expect(added.code, added.stderr).toBe(0);
    const claim = JSON.parse(added.stdout);
    expect(claim).toMatchObject({ domain: 'acme-cli.test', status: 'pending' });
    expect(added.stderr).toContain(
      `Publish this DNS record at your DNS provider, then run \`plat domains verify acme-cli.test\`:\n` +
        `  _plat-challenge.acme-cli.test  TXT  "${claim.verification.value}"\n`,
    );
    // Not published yet: exit 7, saying what DNS answered, in the command's terms.
    const early = await plat(env, ['domains', 'verify', 'acme-cli.test']);
    expect(early).toMatchObject({
      code: 7,
      stdout: '',
      stderr: expect.stringMatching(
        /^plat: domain "acme-cli\.test": no TXT record at _plat-challenge\.acme-cli\.test \[request req_\w+\]\n$/,
      ),
    });
    dns.txt('_plat-challenge.acme-cli.test', [claim.verification.value]);
    const verified = await plat(env, ['domains', 'verify', 'ACME-cli.test', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ id: claim.id, status: 'verified' });
    expect(verified.stderr).toContain('acme-cli.test is verified');
    const listed = await plat(env, ['domains', 'list']);
    expect(listed.stdout.split('\n')[0]).toBe('ID\tDOMAIN\tSTATUS\tTXT NAME\tTXT VALUE\tVERIFIED');
    expect(listed.stdout).toContain(`${claim.id}\tacme-cli.test\tverified\t_plat-challenge.acme-cli.test\t`);
    // Single sign-on may name it now; removed, the domain leaves the configuration too.
    const file = join(home.HOME as string, 'idp.xml');
    writeFileSync(file, samlMetadata({ entityId: 'https://idp.acme.test', ssoUrl: 'https://idp.acme.test/sso' }));
    const set = ['sso', 'set', '--protocol', 'saml', '--provider', 'okta', '--map', 'email=mail'];
    const sso = await plat(env, [...set, '--metadata-file', file, '--domain', 'acme-cli.test', '--json']);
    expect(sso.code, sso.stderr).toBe(0);
    expect(JSON.parse(sso.stdout).domains).toEqual(['acme-cli.test']);
    const removed = await plat(env, ['domains', 'remove', 'acme-cli.test', '--yes']);
    expect(removed).toMatchObject({ code: 0, stdout: '', stderr: `Removed domain acme-cli.test (${claim.id}).\n` });
    expect((await plat(env, ['domains', 'get', 'acme-cli.test'])).code).toBe(5);
    expect(JSON.parse((await plat(env, ['sso', 'get', '--json'])).stdout).domains).toEqual([]);
    // A domain not verified is refused by single sign-on, in the flag's terms.
    expect(await plat(env, [...set, '--metadata-file', file, '--domain', 'acme-cli.test'])).toMatchObject({
      code: 7,
      stderr: expect.stringContaining(
        'plat: --domain "acme-cli.test": acme-cli.test is not a verified domain of this organization',
      ),
    });
  });

  it('refuses what is no domain (7) before asking the platform, and a domain claimed twice (6)', async () => {
    const env = { ...processHome('plat-domains-bad'), PLAT_DNS_SERVER: dns.address };
    expect(await plat(env, ['domains', 'add', 'not a domain'])).toMatchObject({
      code: 7,
      stderr: 'plat: domain "not a domain": must be a domain name, such as acme.com\n',
    });
    expect((await plat(env, ['domains', 'add', 'twice.test'])).code).toBe(0);
    expect(await plat(env, ['domains', 'add', 'twice.test'])).toMatchObject({
      code: 6,
      stderr: expect.stringMatching(/^plat: this organization already claims twice\.test \[request req_\w+\]\n$/),
    });
  });

  it('names a bad PLAT_DNS_SERVER as a usage error (2), without starting anything', async () => {
    const env = { ...processHome('plat-domains-dns'), PLAT_DNS_SERVER: 'dns.example.com' };
    expect(await plat(env, ['domains', 'list'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'plat: PLAT_DNS_SERVER must be an IP address with an optional port: HOST[:PORT], or [IPv6]:PORT\n',
    });
  });
});

describe('plat local domains verify', () => {
  it("vouches for a domain as the operator, by the organization's slug or id; refuses a taken one (6), an unknown organization (5)", async () => {
    const env = processHome('plat-local-domains');
    const init = JSON.parse((await plat(env, ['local', 'init', '--org', 'Acme Ops', '--json'])).stdout);
    const bySlug = await plat(env, ['local', 'domains', 'verify', 'ops.test', '--org', 'acme-ops', '--json']);
    expect(bySlug.code, bySlug.stderr).toBe(0);
    expect(JSON.parse(bySlug.stdout)).toMatchObject({
      organizationId: init.organizationId,
      domain: 'ops.test',
      status: 'verified',
    });
    expect(bySlug.stderr).toBe(`Vouched for ops.test as verified by ${init.organizationId}.\n`);
    // The profile's organization when --org is not given; a second organization may not take it.
    expect((await plat(env, ['local', 'domains', 'verify', 'ops.test'])).code).toBe(0);
    const other = JSON.parse((await plat(env, ['orgs', 'create', 'Other Ops', '--json'])).stdout);
    expect(await plat(env, ['local', 'domains', 'verify', 'ops.test', '--org', other.id])).toMatchObject({
      code: 6,
      stderr: 'plat: ops.test is verified by another organization\n',
    });
    expect(await plat(env, ['local', 'domains', 'verify', 'x.test', '--org', 'nope'])).toMatchObject({
      code: 5,
      stderr: 'plat: no organization nope\n',
    });
    expect(await plat(processHome('plat-local-none'), ['local', 'domains', 'verify', 'x.test'])).toMatchObject({
      code: 5,
      stderr: expect.stringMatching(/^plat: there is no embedded platform at \S+\n$/),
    });
    expect(await plat(env, ['local', 'domains', 'verify', 'not a domain'])).toMatchObject({
      code: 7,
      stderr: 'plat: domain "not a domain": must be a domain name\n',
    });
    const events = JSON.parse((await plat(env, ['events', 'list', '--type', 'domain.verified', '--json'])).stdout);
    expect(events[0]).toMatchObject({ actor: { type: 'system', id: 'plat local' }, data: { method: 'operator' } });
  });
});

describe('plat serve --dns-server', () => {
  it('verifies through the DNS server it names, for a remote client', async () => {
    const serverEnv = processHome('plat-serve-dns');
    const init = JSON.parse((await plat(serverEnv, ['local', 'init', '--json'])).stdout);
    const server = await servePlat(serverEnv, ['--dns-server', dns.address]);
    const env = { ...serverEnv, PLAT_BASE_URL: server.url, PLAT_API_KEY: init.apiKey };
    const claim = JSON.parse((await plat(env, ['domains', 'add', 'served.test', '--json'])).stdout);
    dns.txt('_plat-challenge.served.test', ['v=spf1 -all', claim.verification.value]);
    const verified = await plat(env, ['domains', 'verify', 'served.test', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).status).toBe('verified');
    expect(dns.asked.get('_plat-challenge.served.test')).toBeGreaterThan(0);
  });

  it('refuses a --dns-server that is no address (2) before it listens', async () => {
    const env = processHome('plat-serve-dns-bad');
    expect(await plat(env, ['serve', '--port', '0', '--dns-server', '127.0.0.1:99999'])).toMatchObject({
      code: 2,
      stderr: 'plat: --dns-server must be an IP address with an optional port: HOST[:PORT], or [IPv6]:PORT\n',
    });
  });
});
