import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { signInOnPage, startOidcIdp } from '../helpers/oidc-idp.js';
import { startSamlIdp } from '../helpers/saml-idp.js';
import { loginUrlWatch } from '../helpers/sign-in.js';
import { cleanUpProcesses, processHome, type Run, servePlat, startPlat } from '../helpers/spawn.js';

/**
 * Single sign-on end to end, as a member of an organization does it (docs/sso.md): `plat login --email` (spawned,
 * through the launcher) against `plat serve` (spawned), a real Chromium following the sign-in to the organization's
 * real identity provider on loopback — OpenID Connect (oidc-provider) and SAML 2.0 (samlify) — and back to the CLI's
 * loopback; the member is provisioned on first sign-in, and no secret is ever printed.
 */
let browser: Browser;
const transcript: Run[] = [];
const secrets: string[] = [];

const plat = async (env: Record<string, string>, argv: string[], input?: string) => {
  const r = await startPlat(env, argv, { input, timeoutMs: 60_000 }).done;
  transcript.push(r);
  return r;
};

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  cleanUpProcesses();
  for (const run of transcript) for (const s of secrets) expect(`${run.stdout}${run.stderr}`).not.toContain(s);
});

/** A served platform whose owner can configure it: the server's env, its URL and log, the owner's env. */
async function servedPlatform() {
  const serverEnv = processHome('plat-sso-server');
  const init = await plat(serverEnv, ['local', 'init', '--json']);
  // The owner's key is shown by `local init --json`, on purpose: not one of the secrets checked below.
  const { organizationId, apiKey } = JSON.parse(init.stdout);
  // Single sign-on takes verified domains only: the operator vouches for the tests' two (docs/domains.md).
  for (const domain of ['acme.test', 'saml.test']) {
    expect((await plat(serverEnv, ['local', 'domains', 'verify', domain])).code).toBe(0);
  }
  const server = await servePlat(serverEnv);
  const ownerEnv = { ...serverEnv, PLAT_BASE_URL: server.url, PLAT_API_KEY: apiKey };
  return { server, orgId: organizationId as string, ownerEnv };
}

/**
 * `plat login …` in a fresh home: the person at Chromium opens the URL it prints and does `atIdp` there; returns the
 * run once the CLI is done.
 */
async function login(argv: string[], atIdp: (page: Page, url: string) => Promise<void>) {
  const env = processHome('plat-sso-client');
  const printed = loginUrlWatch();
  const run = startPlat(env, ['login', ...argv], { timeoutMs: 60_000, watch: printed.watch });
  const first = await printed.url(run.done);
  const page = await (await browser.newContext()).newPage();
  await atIdp(page, first);
  await page.context().close();
  const r = await run.done;
  transcript.push(r);
  return { env, r };
}

const toLoopback = (page: Page) => page.waitForURL((u) => u.hostname === '127.0.0.1' && u.pathname === '/callback');

describe('plat login --email through an OpenID provider', () => {
  it('signs a new member in: provisioned, a session of method oidc', async () => {
    const idp = await startOidcIdp({
      users: { alice: { email: 'alice@acme.test', email_verified: true, name: 'Alice Adams', team: 'Payments' } },
    });
    secrets.push(idp.clientSecret);
    try {
      const { server, orgId, ownerEnv } = await servedPlatform();
      idp.setRedirectUris([`${server.url}/v2/sso/oidc/${orgId}/callback`]);
      const set = await plat(
        ownerEnv,
        [
          ...['sso', 'set', '--protocol', 'oidc', '--provider', 'custom-oidc', '--issuer', idp.issuer],
          ...['--client-id', idp.clientId, '--client-secret-stdin', '--map', 'email=email', '--map', 'name=name'],
          ...['--map', 'team=team', '--domain', 'acme.test', '--json'],
        ],
        idp.clientSecret,
      );
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout).redirectUri).toBe(`${server.url}/v2/sso/oidc/${orgId}/callback`);
      expect((await plat(ownerEnv, ['sso', 'enable'])).code).toBe(0);

      const { env, r } = await login(
        ['--base-url', server.url, '--email', 'alice@acme.test', '--no-browser'],
        async (page, url) => {
          await page.goto(url);
          // login_hint took the browser straight to the provider: no page of plat's on the way.
          expect(page.url().startsWith(idp.issuer)).toBe(true);
          await Promise.all([toLoopback(page), signInOnPage(page, 'alice')]);
          expect(await page.locator('body').textContent()).toContain('plat is signed in. You can close this window.');
        },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`Signed in to ${server.url}/v2 as alice@acme.test`);
      await expectSignedIn(env, ownerEnv, orgId, {
        email: 'alice@acme.test',
        name: 'Alice Adams',
        metadata: { team: 'Payments' },
        method: 'oidc',
      });
      expect(server.log()).not.toContain(idp.clientSecret);
    } finally {
      await idp.close();
    }
  }, 90_000);
});

describe('plat login through a SAML identity provider', () => {
  it('signs a new member in from the e-mail step (and a device through the device page): a session of method saml', async () => {
    // At `localhost`, another site than the platform at 127.0.0.1: the browser posts the response cross-site.
    const idp = await startSamlIdp({
      host: 'localhost',
      user: { nameId: 'okta-00u1', email: 'sam@saml.test', name: 'Sam Sample', attributes: { dept: 'Risk' } },
    });
    try {
      const { server, orgId, ownerEnv } = await servedPlatform();
      const set = await plat(ownerEnv, [
        ...['sso', 'set', '--protocol', 'saml', '--provider', 'custom-saml', '--metadata-url', idp.metadataUrl],
        ...['--map', 'email=email', '--map', 'name=name', '--map', 'department=dept', '--domain', 'saml.test'],
      ]);
      expect(set.code, set.stderr).toBe(0);
      expect((await plat(ownerEnv, ['sso', 'enable'])).code).toBe(0);

      // Without --email: the sign-in page asks for the e-mail first, and sends this one to the IdP.
      const { env, r } = await login(['--base-url', server.url, '--no-browser'], async (page, url) => {
        await page.goto(url);
        await page.getByLabel('E-mail').fill('sam@saml.test');
        await Promise.all([toLoopback(page), page.getByRole('button', { name: 'Continue' }).click()]);
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`Signed in to ${server.url}/v2 as sam@saml.test`);
      await expectSignedIn(env, ownerEnv, orgId, {
        email: 'sam@saml.test',
        name: 'Sam Sample',
        metadata: { department: 'Risk' },
        method: 'saml',
      });

      // The device flow: the code and the e-mail on the device page, no password; the IdP approves.
      const device = await login(['--base-url', server.url, '--device'], async (page, url) => {
        await page.goto(url);
        await page.getByLabel('E-mail').fill('sam@saml.test');
        await page.getByRole('button', { name: 'Approve' }).click();
        await page.waitForURL((u) => u.pathname.endsWith('/acs'));
        expect(await page.locator('body').textContent()).toContain('Device connected');
      });
      expect(device.r.code, device.r.stderr).toBe(0);
      const sessions = await plat(device.env, ['sessions', 'list', '--json']);
      expect(JSON.parse(sessions.stdout)).toEqual(
        expect.arrayContaining([expect.objectContaining({ method: 'saml', current: true })]),
      );
    } finally {
      await idp.close();
    }
  }, 120_000);
});

/** The member is signed in where the CLI says, provisioned once, their session of `method`. */
async function expectSignedIn(
  env: Record<string, string>,
  ownerEnv: Record<string, string>,
  orgId: string,
  who: { email: string; name: string; metadata: Record<string, string>; method: string },
) {
  const me = await plat(env, ['whoami', '--json']);
  expect(JSON.parse(me.stdout)).toMatchObject({
    type: 'user',
    user: { email: who.email, name: who.name, status: 'active', emailVerified: true, metadata: who.metadata },
    organization: { id: orgId },
  });
  const userId = JSON.parse(me.stdout).user.id;
  const sessions = await plat(env, ['sessions', 'list', '--json']);
  expect(JSON.parse(sessions.stdout)).toEqual([expect.objectContaining({ method: who.method, current: true })]);
  const provisioned = await plat(ownerEnv, ['events', 'list', '--type', 'user.provisioned', '--json']);
  expect(JSON.parse(provisioned.stdout)).toEqual([
    expect.objectContaining({
      target: { type: 'user', id: userId },
      data: expect.objectContaining({ protocol: who.method }),
    }),
  ]);
}
