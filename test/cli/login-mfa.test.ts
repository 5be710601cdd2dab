import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { totpCode } from '../helpers/mfa.js';
import { loginUrlWatch } from '../helpers/sign-in.js';
import { cleanUpProcesses, processHome, type Run, servedWithOwner, startPlat } from '../helpers/spawn.js';

/**
 * A second factor end to end, as a person meets it: `plat` as spawned processes against `plat serve`, a real Chromium
 * on the sign-in pages, TOTP codes computed by otpauth as an authenticator app would (docs/mfa.md). Codes are each
 * accepted once, so a code for the next 30-second step (accepted: clocks drift) is used where the current one was.
 */
const OWNER = 'admin@localhost';
const PASSWORD = 'the owner types this into chromium';

let clientEnv: Record<string, string>;
let server: { url: string; log: () => string };
let browser: Browser;
let secret = '';
let recoveryCodes: string[] = [];

const plat = (env: Record<string, string>, argv: string[]): Promise<Run> =>
  startPlat(env, argv, { timeoutMs: 60_000 }).done;

/** Runs `plat login …` and hands the first URL it prints (sign-in or device page) to `person`. */
async function login(env: Record<string, string>, argv: string[], person: (url: string) => Promise<void>) {
  const printed = loginUrlWatch();
  const run = startPlat(env, ['login', ...argv], { timeoutMs: 60_000, watch: printed.watch });
  await person(await printed.url(run.done));
  return run.done;
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  return context.newPage();
}

/** E-mail, then password, on the sign-in page the CLI pointed at; the page that follows. */
async function passwordStep(url: string): Promise<Page> {
  const page = await newPage();
  await page.goto(url);
  await page.getByLabel('E-mail').fill(OWNER);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState();
  return page;
}

/** Clicks `button` and waits for the loopback's answer; the page's text. */
async function toCallback(page: Page, button: string): Promise<string> {
  await Promise.all([
    page.waitForURL((u) => u.hostname === '127.0.0.1' && u.pathname === '/callback'),
    page.getByRole('button', { name: button }).click(),
  ]);
  const text = (await page.locator('body').textContent()) ?? '';
  await page.context().close();
  return text;
}

async function whoamiAmr(env: Record<string, string>, argv: string[] = []): Promise<string[]> {
  const r = await plat(env, [...argv, 'whoami', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).amr;
}

beforeAll(async () => {
  ({ server } = await servedWithOwner('plat-login-mfa', PASSWORD));
  clientEnv = processHome('plat-login-mfa');
  expect((await plat(clientEnv, ['profiles', 'add', 'remote', '--base-url', server.url, '--use'])).code).toBe(0);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  cleanUpProcesses();
});

describe('plat login with a second factor, against plat serve, in Chromium', () => {
  it('enrolls an authenticator app from the terminal after a password sign-in', async () => {
    const r = await login(clientEnv, ['--no-browser'], async (url) => {
      const page = await newPage();
      await page.goto(url);
      await page.getByLabel('E-mail').fill(OWNER);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Password').fill(PASSWORD);
      await toCallback(page, 'Sign in');
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await whoamiAmr(clientEnv)).toEqual(['pwd']);
    const started = await plat(clientEnv, ['mfa', 'enroll', 'totp', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const enrollment = JSON.parse(started.stdout);
    secret = enrollment.secret;
    const code = totpCode(secret, Date.now());
    const done = await plat(clientEnv, [
      'mfa',
      'enroll',
      'totp',
      '--factor',
      enrollment.factorId,
      '--code',
      code,
      '--json',
    ]);
    expect(done.code, done.stderr).toBe(0);
    recoveryCodes = JSON.parse(done.stdout).recoveryCodes;
    expect(recoveryCodes).toHaveLength(10);
  }, 60_000);

  it('asks for the code after the password (PKCE in the browser); whoami says pwd otp mfa', async () => {
    const r = await login(clientEnv, ['--no-browser'], async (url) => {
      const page = await passwordStep(url);
      expect(await page.locator('h1').textContent()).toBe('Two-step verification');
      await page.getByLabel('Code').fill('000000');
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('alert').textContent()).toContain('That code is not right');
      await page.getByLabel('Code').fill(totpCode(secret, Date.now() + 30_000));
      expect(await toCallback(page, 'Verify')).toContain('plat is signed in');
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await whoamiAmr(clientEnv)).toEqual(['pwd', 'otp', 'mfa']);
  }, 60_000);

  it('asks for it on the device page too (plat login --device), here answered with a recovery code', async () => {
    const r = await login(clientEnv, ['--profile', 'desk', '--base-url', server.url, '--device'], async (url) => {
      const page = await newPage();
      await page.goto(url);
      await page.getByLabel('E-mail').fill(OWNER);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForLoadState();
      expect(await page.locator('h1').textContent()).toBe('Two-step verification');
      await page.getByLabel('Code').fill(recoveryCodes[0] as string);
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForLoadState();
      expect(await page.locator('body').textContent()).toContain('Device connected');
      await page.context().close();
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await whoamiAmr(clientEnv, ['--profile', 'desk'])).toEqual(['pwd', 'otp', 'mfa']);
    const factors = await plat(clientEnv, ['mfa', 'list', '--json']);
    const codes = JSON.parse(factors.stdout).find((f: any) => f.type === 'recovery_codes');
    expect(codes.remaining).toBe(9);
  }, 60_000);

  it('with the policy required, a person without a factor enrolls one in the browser before plat is signed in', async () => {
    expect((await plat(clientEnv, ['orgs', 'update', '--mfa', 'required'])).code).toBe(0);
    const list = JSON.parse((await plat(clientEnv, ['mfa', 'list', '--json'])).stdout);
    const app = list.find((f: any) => f.type === 'totp');
    const removed = await plat(clientEnv, ['mfa', 'remove', app.id, '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    // Sessions from before the policy go on: the one this profile has still works.
    expect(await whoamiAmr(clientEnv, ['--profile', 'desk'])).toEqual(['pwd', 'otp', 'mfa']);

    const r = await login(clientEnv, ['--no-browser'], async (url) => {
      const page = await passwordStep(url);
      expect(await page.locator('h1').textContent()).toBe('Set up two-step verification');
      await expect(page.locator('#qr svg').count()).resolves.toBe(1);
      const fresh = (await page.locator('#secret').textContent()) as string;
      await page.getByLabel('Code', { exact: true }).fill(totpCode(fresh, Date.now()));
      await page.getByRole('button', { name: 'Verify and continue' }).click();
      await page.waitForLoadState();
      expect(await page.locator('h1').textContent()).toBe('Save your recovery codes');
      expect(await page.locator('#recovery-codes li').count()).toBe(10);
      expect(await toCallback(page, 'I saved them, continue')).toContain('plat is signed in');
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await whoamiAmr(clientEnv)).toEqual(['pwd', 'otp', 'mfa']);
    const after = JSON.parse((await plat(clientEnv, ['mfa', 'list', '--json'])).stdout);
    expect(after.map((f: any) => f.type)).toEqual(['totp', 'recovery_codes']);
  }, 90_000);

  it('printed no secret and no code in the server log', () => {
    const log = server.log();
    expect(log).not.toContain(secret);
    for (const c of recoveryCodes) expect(log).not.toContain(c);
  });
});
