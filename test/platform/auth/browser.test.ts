import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../../src/platform/operations/bootstrap.js';
import { type RunningServer, startServer } from '../../../src/platform/server.js';
import { testDatabase } from '../../helpers/backend.js';
import { launchChromium } from '../../helpers/browser.js';
import { baseOf } from '../../helpers/internals.js';
import { pkce } from './helpers.js';

const PASSWORD = 'a password typed in a browser';

let browser: Browser;
let server: RunningServer;
let dir: string;
const callbacks: { v4?: Server; v6?: Server } = {};
const received: string[] = [];

/** A loopback listener standing in for the CLI's redirect receiver. */
async function callbackServer(host: string): Promise<Server | undefined> {
  const s = createServer((req, res) => {
    received.push(`http://${host.includes(':') ? `[${host}]` : host}:${(s.address() as AddressInfo).port}${req.url}`);
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('signed in; you can close this window');
  });
  return new Promise((resolve) => {
    s.once('error', () => resolve(undefined));
    s.listen(0, host, () => resolve(s));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plat-browser-'));
  server = await startServer({ ...(await testDatabase(join(dir, 'plat.db'))), port: 0, logger: () => {} });
  await bootstrap(baseOf(server.platform), { email: 'owner@acme.test', orgName: 'Acme', password: PASSWORD });
  callbacks.v4 = await callbackServer('127.0.0.1');
  callbacks.v6 = await callbackServer('::1');
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const s of [callbacks.v4, callbacks.v6]) await new Promise((r) => (s ? s.close(r) : r(undefined)));
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens the login page in Chromium, fills it by its labels and submits; returns where the browser landed. */
async function signInWithBrowser(redirectUri: string) {
  const { verifier, challenge } = pkce();
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: 'plat-cli',
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'browser-state',
  });
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const messages: string[] = [];
  page.on('console', (m) => messages.push(m.text()));
  await page.goto(`${server.url}/v2/auth/authorize?${q}`);
  // E-mail first: the page asks for the password once it knows the e-mail has no single sign-on.
  await page.getByLabel('E-mail').fill('owner@acme.test');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').fill(PASSWORD);
  await Promise.all([
    page.waitForURL((u) => u.pathname === '/callback'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  const landed = new URL(page.url());
  await context.close();
  return { landed, verifier, messages };
}

describe('in a real browser (Chromium, JavaScript off)', () => {
  it('fills the login page and lands on the loopback redirect with a code and the state', async () => {
    const port = ((callbacks.v4 as Server).address() as AddressInfo).port;
    const redirect = `http://127.0.0.1:${port}/callback`;
    const { landed, verifier, messages } = await signInWithBrowser(redirect);
    expect(`${landed.origin}${landed.pathname}`).toBe(redirect);
    expect(landed.searchParams.get('state')).toBe('browser-state');
    expect(received.filter((u) => u.includes('/callback')).at(-1)).toBe(landed.href);
    expect(messages.filter((c) => /Content Security Policy|Refused/.test(c))).toEqual([]);
    const token = await fetch(`${server.url}/v2/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: 'plat-cli',
        code: landed.searchParams.get('code') as string,
        redirect_uri: redirect,
        code_verifier: verifier,
      }),
    });
    expect(token.status).toBe(200);
  });

  it('also returns to an IPv6 loopback redirect', async (ctx) => {
    if (!callbacks.v6) return ctx.skip();
    const port = (callbacks.v6.address() as AddressInfo).port;
    const { landed, messages } = await signInWithBrowser(`http://[::1]:${port}/callback`);
    expect(messages).toEqual([]);
    expect(landed.host).toBe(`[::1]:${port}`);
    expect(landed.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('accepts an invitation on its page', async () => {
    const base = baseOf(server.platform);
    const key = await bootstrap(base, { email: 'admin2@acme.test', orgName: 'Invites', password: PASSWORD });
    const invited = await fetch(`${server.url}/v2/organizations/${key.organizationId}/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': key.apiKey },
      body: JSON.stringify({ email: 'ivy@acme.test', name: 'Ivy' }),
    });
    expect(invited.status).toBe(201);
    const link = (await base.stores.outbox.list({ to: 'ivy@acme.test' }))[0]?.links[0] as string;
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(link);
    await page.getByLabel('Your name').fill('Ivy Ivanova');
    await page.getByLabel('Choose a password').fill('ivy picks a long password');
    await page.getByLabel('Repeat the password').fill('ivy picks a long password');
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.waitForURL(link.split('?')[0] as string);
    expect(await page.locator('h1').textContent()).toBe('Welcome');
    await context.close();
    const user = await fetch(`${server.url}/v2/users/${((await invited.json()) as any).userId}`, {
      headers: { 'X-API-Key': key.apiKey },
    });
    expect(await user.json()).toMatchObject({ status: 'active', emailVerified: true, name: 'Ivy Ivanova' });
  });
});
