import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page, Response as PageResponse } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passkeysOffered } from '../../../src/platform/auth/webauthn.js';
import { bootstrap } from '../../../src/platform/operations/bootstrap.js';
import { type RunningServer, startServer } from '../../../src/platform/server.js';
import { testDatabase } from '../../helpers/backend.js';
import { launchChromium } from '../../helpers/browser.js';
import { baseOf } from '../../helpers/internals.js';
import { freePort } from '../../helpers/ports.js';
import { type VirtualAuthenticator, virtualAuthenticator } from '../../helpers/virtual-authenticator.js';
import {
  AUTH_URL,
  authorizePlatform,
  FormBrowser,
  formFields,
  authorizeUrl as inProcessAuthorizeUrl,
  OWNER_EMAIL,
  OWNER_PASSWORD,
  pkce,
  tokenRequest,
} from './helpers.js';

/**
 * Passkeys end to end (docs/mfa.md): `plat serve`'s listener with the public URL `http://localhost:PORT` (browsers
 * refuse an IP address as a relying party), a real Chromium with JavaScript on, and a virtual authenticator attached
 * through the DevTools protocol that holds discoverable passkeys and verifies its user.
 */
const PASSWORD = 'a password typed next to a passkey';
const RITA_PASSWORD = 'rita belongs to a strict organization';

let browser: Browser;
let server: RunningServer;
let dir: string;
/** The public URL the pages are opened at. */
let site: string;
let orgId: string;
let ownerId: string;
let ownerKey: string;
let callback: Server;
let redirect: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plat-passkeys-'));
  const port = await freePort();
  site = `http://localhost:${port}`;
  server = await startServer({
    ...(await testDatabase(join(dir, 'plat.db'))),
    port,
    publicUrl: site,
    logger: () => {},
    limits: { enabled: false },
  });
  const boot = await bootstrap(baseOf(server.platform), {
    email: 'owner@acme.test',
    orgName: 'Acme',
    password: PASSWORD,
  });
  ({ organizationId: orgId, userId: ownerId, apiKey: ownerKey } = boot);
  callback = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('signed in'));
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  redirect = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (callback ? callback.close(r) : r(undefined)));
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A page with JavaScript and a virtual authenticator of its own; what the console said (CSP refusals among it). */
async function newPage(): Promise<{ page: Page; authenticator: VirtualAuthenticator; console: string[] }> {
  const page = await (await browser.newContext()).newPage();
  const messages: string[] = [];
  page.on('console', (m) => messages.push(m.text()));
  page.on('pageerror', (e) => messages.push(e.message));
  return { page, authenticator: await virtualAuthenticator(page), console: messages };
}

/** An authorization request of `plat-cli` to the loopback receiver, and its PKCE verifier. */
function authorizeUrl(): { url: string; verifier: string } {
  const { verifier, challenge } = pkce();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: 'plat-cli',
    redirect_uri: redirect,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'passkey-state',
  });
  return { url: `${site}/v2/auth/authorize?${q}`, verifier };
}

/** The `amr` of the access token the code is exchanged for. */
async function amrOf(code: string, verifier: string): Promise<string[]> {
  const fields = {
    grant_type: 'authorization_code',
    client_id: 'plat-cli',
    code,
    redirect_uri: redirect,
    code_verifier: verifier,
  };
  const r = await tokenRequest((request) => fetch(request), fields, server.url);
  expect(r.status).toBe(200);
  const { access_token: token } = r.body as { access_token: string };
  return JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()).amr;
}

/** Clicks a button that leads to the loopback receiver; the code it brought. */
async function toCallback(page: Page, button: string): Promise<string> {
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(redirect)),
    page.getByRole('button', { name: button, exact: true }).click(),
  ]);
  const landed = new URL(page.url());
  expect(landed.searchParams.get('state')).toBe('passkey-state');
  return landed.searchParams.get('code') as string;
}

/** Waits for the page whose heading is `text`. */
async function heading(page: Page, text: string): Promise<void> {
  await page.locator('h1', { hasText: text }).waitFor();
}

/** Through the e-mail and password steps of the sign-in page. */
async function typePassword(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await page.getByLabel('Password').fill(password);
}

/** The posts of the sign-in form that carried a passkey, by the form's `passkey` field. */
function passkeyPosts(page: Page): string[] {
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'POST') return;
    const passkey = new URLSearchParams(r.postData() ?? '').get('passkey');
    if (passkey) posts.push(passkey);
  });
  return posts;
}

/** Posts `passkey` through the passkey form of the page (as a forger would), and the answer. */
async function postPasskey(page: Page, form: string, passkey: string): Promise<PageResponse> {
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.waitForEvent('load'),
    page.locator(`#${form} input[name="passkey"]`).evaluate((field: any, value: string) => {
      field.value = value;
      field.form.submit();
    }, passkey),
  ]);
  return answer;
}

/** The factors of an account as the API lists them. */
async function factorsOf(userId: string, key: string): Promise<{ type: string; name: string }[]> {
  const r = await fetch(`${server.url}/v2/users/${userId}/mfa`, { headers: { 'X-API-Key': key } });
  expect(r.status).toBe(200);
  return ((await r.json()) as { data: { type: string; name: string }[] }).data;
}

/** The events of a type in the organization, newest first. */
async function events(type: string, key = ownerKey, org = orgId): Promise<{ data: Record<string, unknown> }[]> {
  const r = await fetch(`${server.url}/v2/organizations/${org}/events?type=${type}`, { headers: { 'X-API-Key': key } });
  expect(r.status).toBe(200);
  return ((await r.json()) as { data: { data: Record<string, unknown> }[] }).data;
}

describe('passkeys in a real browser (Chromium with a virtual authenticator)', () => {
  // The owner's browser: one page, one authenticator, through the tests that follow one another.
  let owner: Awaited<ReturnType<typeof newPage>>;
  let posted: string[];

  it('the factors page signs the owner in and adds a passkey, with recovery codes (the first factor)', async () => {
    owner = await newPage();
    const { page } = owner;
    posted = passkeyPosts(page);
    const first = await page.goto(`${site}/v2/auth/mfa`);
    expect(first?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByLabel('E-mail').fill('owner@acme.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading(page, 'Add a second factor');
    await page.getByRole('button', { name: 'Set up a passkey' }).click();
    await heading(page, 'Save your recovery codes');
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    await page.getByRole('button', { name: 'I saved them, continue' }).click();
    await heading(page, 'Second factor added');

    const [credential, ...more] = await owner.authenticator.credentials();
    expect(more).toEqual([]);
    expect(credential).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    expect(Buffer.from(credential?.userHandle as string, 'base64').toString()).toBe(ownerId);
    // Made in the same millisecond: in no particular order.
    expect((await factorsOf(ownerId, ownerKey)).map((f) => `${f.type}: ${f.name}`).sort()).toEqual([
      'recovery_codes: Recovery codes',
      'webauthn: Passkey',
    ]);
    // The unconfirmed authenticator app the enrolment step had begun is gone.
    const stored = await baseOf(server.platform).stores.mfa.list(ownerId, true);
    expect(stored.map((f) => f.type).sort()).toEqual(['recovery_codes', 'webauthn']);
    const credentialId = Buffer.from(credential?.credentialId as string, 'base64').toString('base64url');
    expect(stored.find((f) => f.type === 'webauthn')?.webauthn).toMatchObject({
      credentialId,
      transports: ['internal'],
      backedUp: false,
    });
    expect((await events('mfa.enrolled'))[0]?.data).toMatchObject({ factor: 'webauthn', name: 'Passkey' });
    expect(owner.console.filter((m) => /Content Security Policy|Refused|Error/.test(m))).toEqual([]);
  });

  it('signs in with the password, then the passkey as the second factor: amr pwd, hwk, user, mfa', async () => {
    const { page } = owner;
    const { url, verifier } = authorizeUrl();
    await page.goto(url);
    await typePassword(page, 'owner@acme.test', PASSWORD);
    const factor = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect((await factor).headers()['content-security-policy']).toContain("script-src 'self'");
    await heading(page, 'Two-step verification');
    expect(await page.locator('.note').first().textContent()).toBe(
      'Use your passkey, or enter one of your recovery codes.',
    );
    const code = await toCallback(page, 'Use a passkey');
    expect(await amrOf(code, verifier)).toEqual(['pwd', 'hwk', 'user', 'mfa']);
    expect(posted).toHaveLength(2);
    expect(owner.console.filter((m) => /Content Security Policy|Refused|Error/.test(m))).toEqual([]);
  });

  it('signs in without a password with the discoverable passkey: amr hwk, user, mfa', async () => {
    const { page } = owner;
    const { url, verifier } = authorizeUrl();
    await page.goto(url);
    const code = await toCallback(page, 'Sign in with a passkey');
    expect(await amrOf(code, verifier)).toEqual(['hwk', 'user', 'mfa']);
    expect(posted).toHaveLength(3);
  });

  it('refuses an assertion replayed, at the second factor and without a password, and a forged one', async () => {
    const { page } = owner;
    const [, secondFactor, passwordless] = posted as [string, string, string];
    const failedBefore = (await events('mfa.failed')).length;

    // The assertion of the second factor again, with the password right: its challenge was used.
    await page.goto(authorizeUrl().url);
    await typePassword(page, 'owner@acme.test', PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading(page, 'Two-step verification');
    const replayed = await postPasskey(page, 'passkey-factor', secondFactor);
    expect(replayed.status()).toBe(401);
    expect(await page.locator('#error').textContent()).toBe(
      'That passkey could not be verified. Try it again, or enter a code.',
    );

    // A fresh assertion of this page's challenge, its signature altered.
    const made = (await page.evaluate(`(async () => {
      const options = JSON.parse(document.getElementById('passkey-button').getAttribute('data-options'));
      return JSON.stringify(await SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options }));
    })()`)) as string;
    const assertion = JSON.parse(made);
    const signature = Buffer.from(assertion.response.signature, 'base64url');
    signature.writeUInt8((signature.at(-1) as number) ^ 1, signature.length - 1);
    assertion.response.signature = signature.toString('base64url');
    const forged = await postPasskey(page, 'passkey-factor', JSON.stringify(assertion));
    expect(forged.status()).toBe(401);
    expect(page.url()).not.toContain('/callback');

    // The password-less assertion again, on the e-mail step.
    await page.goto(authorizeUrl().url);
    await heading(page, 'Sign in');
    const again = await postPasskey(page, 'passkey-sign-in', passwordless);
    expect(again.status()).toBe(401);
    expect(await page.locator('#error').textContent()).toBe(
      'That passkey could not sign you in. Try again, or sign in with your e-mail.',
    );
    // Each refusal counts toward the owner's wrong codes, and is recorded.
    const failed = await events('mfa.failed');
    expect(failed.length - failedBefore).toBe(3);
    expect(failed[0]?.data).toMatchObject({ factor: 'webauthn' });

    // The passkey itself still works (its counter went on past the forged attempt's).
    const { url, verifier } = authorizeUrl();
    await page.goto(url);
    expect(await amrOf(await toCallback(page, 'Sign in with a passkey'), verifier)).toEqual(['hwk', 'user', 'mfa']);
  });

  it('approves a device with the passkey, without a password', async () => {
    const { page } = owner;
    const started = await fetch(`${server.url}/v2/auth/device/code`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'plat-cli' }),
    });
    const device = (await started.json()) as { device_code: string; user_code: string };
    await page.goto(`${site}/v2/auth/device?user_code=${encodeURIComponent(device.user_code)}`);
    await page.getByRole('button', { name: 'Approve with a passkey' }).click();
    await heading(page, 'Device connected');
    const token = await fetch(`${server.url}/v2/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: device.device_code,
        client_id: 'plat-cli',
      }),
    });
    expect(token.status).toBe(200);
    const { access_token: access } = (await token.json()) as { access_token: string };
    expect(JSON.parse(Buffer.from(access.split('.')[1] as string, 'base64url').toString()).amr).toEqual([
      'hwk',
      'user',
      'mfa',
    ]);
  });

  it('a member of an organization that requires a second factor enrolls a passkey at sign-in', async () => {
    const base = baseOf(server.platform);
    const rita = await bootstrap(base, { email: 'rita@strict.test', orgName: 'Strict', password: RITA_PASSWORD });
    const patched = await fetch(`${server.url}/v2/organizations/${rita.organizationId}`, {
      method: 'PATCH',
      headers: { 'X-API-Key': rita.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ mfa: 'required' }),
    });
    expect(patched.status).toBe(200);

    const { page, authenticator, console: said } = await newPage();
    const { url, verifier } = authorizeUrl();
    await page.goto(url);
    await typePassword(page, 'rita@strict.test', RITA_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading(page, 'Set up two-step verification');
    expect(await page.locator('.note').first().textContent()).toContain('Strict requires a second factor.');
    // The authenticator app is offered beside it.
    expect(await page.locator('#qr svg').count()).toBe(1);
    await page.getByRole('button', { name: 'Set up a passkey' }).click();
    await heading(page, 'Save your recovery codes');
    const code = await toCallback(page, 'I saved them, continue');
    expect(await amrOf(code, verifier)).toEqual(['pwd', 'hwk', 'user', 'mfa']);
    expect(await authenticator.credentials()).toHaveLength(1);
    expect((await factorsOf(rita.userId, rita.apiKey)).map((f) => f.type).sort()).toEqual([
      'recovery_codes',
      'webauthn',
    ]);
    expect(said.filter((m) => /Content Security Policy|Refused|Error/.test(m))).toEqual([]);

    // The next sign-in asks for it, and then the organization's policy is met.
    const next = authorizeUrl();
    await page.goto(next.url);
    await typePassword(page, 'rita@strict.test', RITA_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading(page, 'Two-step verification');
    expect(await amrOf(await toCallback(page, 'Use a passkey'), next.verifier)).toEqual(['pwd', 'hwk', 'user', 'mfa']);
  });

  it('serves the scripts the pages load, from this origin', async () => {
    for (const path of ['/v2/auth/assets/passkeys.js', '/v2/auth/assets/simplewebauthn-browser.js']) {
      const r = await fetch(`${server.url}${path}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const library = await (await fetch(`${server.url}/v2/auth/assets/simplewebauthn-browser.js`)).text();
    expect(library).toContain('SimpleWebAuthnBrowser');
  });
});

describe('where browsers cannot use passkeys', () => {
  it('offers them only with a named host in a secure context (HTTPS, or localhost)', () => {
    const at = (publicUrl: string) => passkeysOffered({ publicUrl } as Parameters<typeof passkeysOffered>[0]);
    expect(at('https://plat.example.com')).toBe(true);
    expect(at('http://localhost:8080')).toBe(true);
    expect(at('http://plat.localhost:8080')).toBe(true);
    expect(at('http://127.0.0.1:8080')).toBe(false);
    expect(at('https://127.0.0.1')).toBe(false);
    expect(at('http://[::1]:8080')).toBe(false);
    expect(at('http://plat.test')).toBe(false);
  });

  it('pages elsewhere load no script, and their CSP allows none', async () => {
    const t = await authorizePlatform();
    const { challenge } = pkce();
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: 'plat-cli',
      redirect_uri: 'http://127.0.0.1:49152/callback',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const r = await t.fetch(new Request(`http://plat.test/v2/auth/authorize?${q}`));
    const text = await r.text();
    expect(text).not.toContain('<script');
    expect(text).not.toContain('passkey');
    expect(r.headers.get('content-security-policy')).not.toContain('script-src');
  });
});

describe('passkeys that do not verify (in-process)', () => {
  it("count toward the user's limit of wrong codes: 5, then nothing is checked for 15 minutes", async () => {
    const t = await authorizePlatform();
    const base = baseOf(t.platform);
    // A passkey on record (no browser here: what is posted never verifies against it).
    await base.stores.mfa.insertWebauthn({
      id: base.ids('mfaFactor'),
      accountId: t.ownerId,
      name: 'Passkey',
      credentialId: 'AAAA',
      publicKey: 'AAAA',
      signCount: 0,
      transports: [],
      backedUp: false,
      now: base.now(),
    });
    const browser = new FormBrowser(t.fetch);
    const login = await browser.get(inProcessAuthorizeUrl(AUTH_URL, pkce().challenge));
    const post = (page: { text: string }, fields: Record<string, string>) =>
      browser.post(`${AUTH_URL}/authorize`, { ...formFields(page.text), ...fields });
    let r = await post(login, { email: OWNER_EMAIL, password: OWNER_PASSWORD });
    expect(r.text).toContain('Two-step verification');
    const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'never-handed-out' }));
    const forged = JSON.stringify({
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: clientData.toString('base64url'), authenticatorData: '', signature: '' },
      clientExtensionResults: {},
    });
    for (const passkey of [forged, 'not json', '{}', forged, forged]) {
      r = await post(r, { passkey });
      expect(r.status).toBe(401);
      expect(r.text).toContain('That passkey could not be verified');
    }
    r = await post(r, { passkey: forged });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe(String(15 * 60));
    // The limit is the user's, whatever the factor: a code is not looked at either.
    r = await post(r, { code: '123456' });
    expect(r.status).toBe(429);
    const failed = await t.call('GET', `/organizations/${t.orgId}/events?type=mfa.failed`);
    expect(failed.body.data.map((e: any) => e.data.factor)).toEqual(Array(5).fill('webauthn'));
  });

  it('a passkey without a password, never handed out a challenge, is refused with one message', async () => {
    const t = await authorizePlatform();
    const browser = new FormBrowser(t.fetch);
    const login = await browser.get(inProcessAuthorizeUrl(AUTH_URL, pkce().challenge));
    const r = await browser.post(`${AUTH_URL}/authorize`, { ...formFields(login.text), passkey: '{"id":"x"}' });
    expect(r.status).toBe(401);
    expect(r.text).toContain('That passkey could not sign you in.');
  });
});

describe('the server side of WebAuthn stays out of every start', () => {
  const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

  it('the startup snapshot requires @simplewebauthn/server when used, and holds none of it', () => {
    const file = join(ROOT, 'dist/snapshot/plat.cjs');
    expect(existsSync(file), 'run `npm run build` first (npm test does)').toBe(true);
    const script = readFileSync(file, 'utf8');
    expect(script).toContain('require("@simplewebauthn/server")');
    // Names of the library's own functions and of the ASN.1 packages it brings.
    expect(script).not.toMatch(/verifyAttestationWithMetadata|decodeCredentialPublicKey|AsnConvert/);
  });

  it("the bundle's entry reaches it only through import()", () => {
    const meta = JSON.parse(readFileSync(join(ROOT, 'dist/bundle/meta.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown>; imports: { path: string; kind: string }[] }>;
    };
    const reached = new Set<string>();
    const visit = (out: string) => {
      if (reached.has(out) || !meta.outputs[out]) return;
      reached.add(out);
      for (const i of meta.outputs[out].imports) if (i.kind === 'import-statement') visit(i.path);
    };
    visit('dist/bundle/main.js');
    const statically = [...reached].flatMap((o) => Object.keys(meta.outputs[o]?.inputs ?? {}));
    expect(statically.filter((i) => i.includes('@simplewebauthn/'))).toEqual([]);
    const anywhere = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    expect(anywhere.some((i) => i.includes('@simplewebauthn/server/'))).toBe(true);
  });
});
