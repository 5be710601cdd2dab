import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { freePort } from '../helpers/ports.js';
import { authorizeUrlIn } from '../helpers/sign-in.js';
import { cleanUpProcesses, processHome, type Run, servedWithOwner, startPlat } from '../helpers/spawn.js';
import { type VirtualAuthenticator, virtualAuthenticator } from '../helpers/virtual-authenticator.js';

/**
 * `plat login` (PKCE) with a passkey, end to end (docs/mfa.md): `plat serve` spawned with a public URL on `localhost`
 * (browsers refuse an IP address as a WebAuthn relying party), `plat login` spawned against it, and a real Chromium
 * with a virtual authenticator on the sign-in pages. The owner adds a passkey on the factors page, then signs in
 * with it — after the password, and without one.
 */
const OWNER = 'admin@localhost';
const PASSWORD = 'the owner has a passkey too';

let clientEnv: Record<string, string>;
let site: string;
let browser: Browser;
/** The owner's browser tab and its authenticator, through every test. */
let page: Page;
let authenticator: VirtualAuthenticator;

const plat = (env: Record<string, string>, argv: string[]): Promise<Run> =>
  startPlat(env, argv, { timeoutMs: 60_000 }).done;

/** Runs `plat login --no-browser …` and hands the sign-in URL it prints to `person`. */
async function login(argv: string[], person: (url: string) => Promise<void>): Promise<Run> {
  let found: ((url: string) => void) | undefined;
  const printed = new Promise<string>((resolve) => (found = resolve));
  const run = startPlat(clientEnv, ['login', '--no-browser', ...argv], {
    timeoutMs: 60_000,
    watch: (stderr) => {
      const url = authorizeUrlIn(stderr);
      if (url) found?.(url);
    },
  });
  const first = await Promise.race([printed, run.done]);
  if (typeof first !== 'string') throw new Error(`login ended before printing a URL: ${first.stderr}`);
  await person(first);
  return run.done;
}

/** Clicks `button` and waits for the CLI's loopback receiver; the page's text. */
async function toCallback(button: string): Promise<string> {
  await Promise.all([
    page.waitForURL((u) => u.hostname === '127.0.0.1' && u.pathname === '/callback'),
    page.getByRole('button', { name: button, exact: true }).click(),
  ]);
  return (await page.locator('body').textContent()) ?? '';
}

async function whoamiAmr(argv: string[] = []): Promise<string[]> {
  const r = await plat(clientEnv, [...argv, 'whoami', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).amr;
}

beforeAll(async () => {
  const port = await freePort();
  site = `http://localhost:${port}`;
  await servedWithOwner('plat-login-passkey', PASSWORD, ['--port', String(port), '--public-url', site]);
  clientEnv = processHome('plat-login-passkey');
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  authenticator = await virtualAuthenticator(page);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  cleanUpProcesses();
});

describe('plat login with a passkey, against plat serve --public-url http://localhost:PORT', () => {
  it('the owner adds a passkey on the factors page', async () => {
    await page.goto(`${site}/v2/auth/mfa`);
    await page.getByLabel('E-mail').fill(OWNER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Set up a passkey' }).click();
    await page.locator('h1', { hasText: 'Save your recovery codes' }).waitFor();
    await page.getByRole('button', { name: 'I saved them, continue' }).click();
    await page.locator('h1', { hasText: 'Second factor added' }).waitFor();
    expect(await authenticator.credentials()).toHaveLength(1);
  }, 60_000);

  it('signs in with the password, then the passkey; whoami says pwd hwk user mfa', async () => {
    const r = await login(['--base-url', site], async (url) => {
      expect(url.startsWith(`${site}/v2/auth/authorize?`)).toBe(true);
      await page.goto(url);
      await page.getByLabel('E-mail').fill(OWNER);
      await page.getByRole('button', { name: 'Continue', exact: true }).click();
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.locator('h1', { hasText: 'Two-step verification' }).waitFor();
      expect(await toCallback('Use a passkey')).toContain('plat is signed in');
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await whoamiAmr()).toEqual(['pwd', 'hwk', 'user', 'mfa']);
  }, 60_000);

  it('signs in with the passkey alone, no e-mail, no password; whoami says hwk user mfa', async () => {
    const r = await login(['--profile', 'passkey', '--base-url', site], async (url) => {
      await page.goto(url);
      expect(await toCallback('Sign in with a passkey')).toContain('plat is signed in');
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await whoamiAmr(['--profile', 'passkey'])).toEqual(['hwk', 'user', 'mfa']);
    const me = await plat(clientEnv, ['--profile', 'passkey', 'whoami', '--json']);
    expect(JSON.parse(me.stdout)).toMatchObject({ type: 'user', user: { email: OWNER } });
  }, 60_000);
});
