import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashSync as bcryptHash } from '@node-rs/bcrypt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { loginUrlWatch } from '../helpers/sign-in.js';
import { cleanUpProcesses, processHome, type Run, servePlat, startPlat } from '../helpers/spawn.js';

/**
 * Sign-in end to end, as a person does it: `plat` runs as spawned processes, through the launcher, against `plat serve`
 * (also spawned), and a real Chromium fills the pages. Every word either process prints is kept, to prove that no
 * secret (password, code, token) is ever among them.
 */
const OWNER_PASSWORD = 'the owner types this into chromium';
const IVY_PASSWORD = 'ivy picks a long password of her own';
/** What an imported user had as their password where they come from (short: no rule of ours made it). */
const OLD_PASSWORD = 'mo-2019!';

const transcript: Run[] = [];
let serverEnv: Record<string, string>;
let clientEnv: Record<string, string>;
let server: { url: string; log: () => string };
let browser: Browser;

const home = () => processHome('plat-login-e2e');

/** Starts `plat …`, keeping its run in the transcript; `watch` sees stderr as it grows. */
function start(env: Record<string, string>, argv: string[], watch?: (stderr: string) => void) {
  const run = startPlat(env, argv, { timeoutMs: 60_000, watch });
  const done = run.done.then((r) => {
    transcript.push(r);
    return r;
  });
  return { child: run.child, done };
}

const plat = (env: Record<string, string>, argv: string[]) => start(env, argv).done;

/** Runs `plat login …` and hands the first URL it prints (sign-in page or device page) to `person`. */
async function login(env: Record<string, string>, argv: string[], person: (url: string) => Promise<void>) {
  const printed = loginUrlWatch();
  const run = start(env, ['--verbose', 'login', ...argv], printed.watch);
  await person(await printed.url(run.done));
  return run.done;
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  return context.newPage();
}

/** Fills the login page the CLI pointed at, and waits for the loopback's answer. */
async function signInWithChromium(url: string, email: string, password: string): Promise<string> {
  const page = await newPage();
  await page.goto(url);
  // E-mail first: the page asks for the password once it knows the e-mail has no single sign-on.
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').fill(password);
  await Promise.all([
    page.waitForURL((u) => u.hostname === '127.0.0.1' && u.pathname === '/callback'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  const text = (await page.locator('body').textContent()) ?? '';
  codes.push(new URL(page.url()).searchParams.get('code') as string);
  await page.context().close();
  return text;
}

const codes: string[] = [];
/** Every token the credential files held at any point (they rotate). */
const tokens = new Set<string>();
function collectTokens(env: Record<string, string>): Record<string, any> {
  const file = join(env.PLAT_CONFIG_DIR as string, 'credentials.json');
  const profiles = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).profiles : {};
  for (const c of Object.values(profiles) as any[]) {
    for (const t of [c.accessToken, c.refreshToken, c.apiKey]) if (t) tokens.add(t);
  }
  return profiles;
}

beforeAll(async () => {
  expect(
    existsSync(new URL('../../dist/bundle/main.js', import.meta.url)),
    'run `npm run build` first (npm test does)',
  ).toBe(true);
  serverEnv = home();
  const init = await plat(serverEnv, ['local', 'init', '--password', OWNER_PASSWORD, '--json']);
  expect(init.code, init.stderr).toBe(0);
  server = await servePlat(serverEnv);
  clientEnv = home();
  expect((await plat(clientEnv, ['profiles', 'add', 'remote', '--base-url', server.url, '--use'])).code).toBe(0);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  cleanUpProcesses();
});

describe('plat login with a real browser, against plat serve', () => {
  it('signs the owner in (--no-browser prints the URL; Chromium fills the page); commands use the token', async () => {
    let page = '';
    const r = await login(clientEnv, ['--no-browser'], async (url) => {
      page = await signInWithChromium(url, 'admin@localhost', OWNER_PASSWORD);
    });
    expect(r.code, r.stderr).toBe(0);
    expect(page).toContain('plat is signed in. You can close this window.');
    expect(r.stdout).toMatch(/^PROFILE\tENDPOINT\tUSER\t.*\nremote\thttp:\/\/127\.0\.0\.1:\d+\/v2\tadmin@localhost\t/);
    const stored = collectTokens(clientEnv).remote;
    expect(stored).toMatchObject({ clientId: 'plat-cli', issuer: `${server.url}/v2/auth` });

    const users = await plat(clientEnv, ['users', 'list']);
    expect(users.code, users.stderr).toBe(0);
    expect(users.stdout).toMatch(/\tadmin@localhost\tAdmin\towner\tactive\t/);
    const status = await plat(clientEnv, ['auth', 'status']);
    expect(status.stdout).toContain('credential\taccess token (store)\t');
  }, 60_000);

  it('an invited user accepts in the browser, setting a password, then signs in with plat login', async () => {
    const invite = await plat(clientEnv, ['users', 'invite', 'ivy@example.com', '--name', 'Ivy', '--json']);
    expect(invite.code, invite.stderr).toBe(0);
    // The served database's mailbox, read the way a developer would: plat local mail on the server's side.
    const mail = await plat(serverEnv, ['local', 'mail', '--to', 'ivy@example.com', '--json']);
    expect(mail.code, mail.stderr).toBe(0);
    const link = JSON.parse(mail.stdout)[0].links[0] as string;
    expect(link.startsWith(`${server.url}/v2/auth/invitations/accept?`)).toBe(true);

    const page = await newPage();
    await page.goto(link);
    await page.getByLabel('Your name').fill('Ivy Ivanova');
    await page.getByLabel('Choose a password').fill(IVY_PASSWORD);
    await page.getByLabel('Repeat the password').fill(IVY_PASSWORD);
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.waitForURL(link.split('?')[0] as string);
    expect(await page.locator('h1').textContent()).toBe('Welcome');
    await page.context().close();

    // Ivy signs in under a profile of her own, which login creates for the server's URL.
    const r = await login(clientEnv, ['--profile', 'ivy', '--base-url', server.url, '--no-browser'], async (url) => {
      await signInWithChromium(url, 'ivy@example.com', IVY_PASSWORD);
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Added profile "ivy" for ${server.url}/v2`);
    collectTokens(clientEnv);
    const me = await plat(clientEnv, ['--profile', 'ivy', 'whoami', '--json']);
    expect(me.code, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({
      type: 'user',
      user: { email: 'ivy@example.com', name: 'Ivy Ivanova', status: 'active' },
    });
  }, 60_000);

  it('a user imported with the bcrypt hash they had elsewhere signs in with plat login and their old password', async () => {
    // Made by a bcrypt library as the system they come from made it; the scheme's own vectors are in the platform's tests.
    const hash = bcryptHash(OLD_PASSWORD, 4);
    const body = JSON.stringify({ users: [{ email: 'mo@example.com', name: 'Mo', passwordHash: hash }] });
    const imported = await plat(clientEnv, ['api', 'POST', '/organizations/{orgId}/users/batch', '--data', body]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout).summary).toMatchObject({ created: 1, failed: 0 });
    const mail = await plat(serverEnv, ['local', 'mail', '--to', 'mo@example.com', '--json']);
    expect(JSON.parse(mail.stdout)).toEqual([]);

    const r = await login(clientEnv, ['--profile', 'mo', '--base-url', server.url, '--no-browser'], async (url) => {
      await signInWithChromium(url, 'mo@example.com', OLD_PASSWORD);
    });
    expect(r.code, r.stderr).toBe(0);
    collectTokens(clientEnv);
    const me = await plat(clientEnv, ['--profile', 'mo', 'whoami', '--json']);
    expect(JSON.parse(me.stdout)).toMatchObject({ type: 'user', user: { email: 'mo@example.com', status: 'active' } });
    // Signed in once, the account holds the platform's own hash: the same password signs in against it.
    const again = await login(
      clientEnv,
      ['--profile', 'mo2', '--base-url', server.url, '--no-browser'],
      async (url) => {
        await signInWithChromium(url, 'mo@example.com', OLD_PASSWORD);
      },
    );
    expect(again.code, again.stderr).toBe(0);
    collectTokens(clientEnv);
    expect(transcript.map((x) => x.stdout + x.stderr).join('\n')).not.toContain(hash.slice(-20));
  }, 60_000);

  it("opens the desktop's browser at the sign-in page (xdg-open, stood in for by a script that hands the URL to Chromium)", async () => {
    // No desktop here: the stand-in records the URL plat asks it to open, and Chromium then opens it.
    const bin = join(clientEnv.HOME as string, 'desktop-bin');
    const opened = join(clientEnv.HOME as string, 'opened.txt');
    mkdirSync(bin, { recursive: true });
    const tunables = join(clientEnv.HOME as string, 'tunables.txt');
    writeFileSync(
      join(bin, 'xdg-open'),
      `#!/bin/sh\nprintf '%s\\n' "\${GLIBC_TUNABLES-unset}" > '${tunables}'\nprintf '%s\\n' "$1" >> '${opened}'\n`,
      { mode: 0o755 },
    );
    // The user's own glibc setting reaches what plat starts as it was: the launcher's, for plat's start, does not.
    // (Linux: plat's environment at its start is read from /proc.)
    const env = {
      ...clientEnv,
      DISPLAY: ':0',
      PATH: `${bin}:${clientEnv.PATH}`,
      GLIBC_TUNABLES: 'glibc.malloc.arena_max=2',
    };
    const run = start(env, ['login', '--profile', 'desk', '--base-url', server.url]);
    let ended: Run | undefined;
    void run.done.then((r) => (ended = r));
    const deadline = Date.now() + 20_000;
    while (!existsSync(opened) && !ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(opened), `plat login did not open a browser: ${ended?.stderr}`).toBe(true);
    // plat started from the snapshot with the launcher's setting first (the environment it was started with; glibc
    // may have cut the value at its first ':' there while reading it)…
    const started = readFileSync(`/proc/${run.child.pid}/environ`, 'utf8').split('\0');
    expect(started.filter((v) => v.startsWith('GLIBC_TUNABLES='))).toEqual([
      expect.stringMatching(/^GLIBC_TUNABLES=glibc\.malloc\.hugetlb=1(:glibc\.malloc\.arena_max=2)?$/),
    ]);
    const url = readFileSync(opened, 'utf8').trim();
    expect(url.startsWith(`${server.url}/v2/auth/authorize?`)).toBe(true);
    // …and what it started got the user's alone.
    expect(readFileSync(tunables, 'utf8')).toBe('glibc.malloc.arena_max=2\n');
    const page = await signInWithChromium(url, 'admin@localhost', OWNER_PASSWORD);
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(page).toContain('plat is signed in. You can close this window.');
    expect(r.stdout).toMatch(/\ndesk\thttp:\/\/127\.0\.0\.1:\d+\/v2\tadmin@localhost\t/);
    collectTokens(clientEnv);
  }, 60_000);

  it('signs in with the device flow: the browser signs in and enters the user code', async () => {
    let shown = '';
    const r = await login(clientEnv, ['--profile', 'device', '--base-url', server.url, '--device'], async (url) => {
      const code = new URL(url).searchParams.get('user_code') as string;
      shown = code;
      const page = await newPage();
      await page.goto(`${server.url}/v2/auth/device`); // the short URL: the person types the code
      await page.getByLabel('Code').fill(code.toLowerCase().replace('-', ''));
      await page.getByLabel('E-mail').fill('admin@localhost');
      await page.getByLabel('Password').fill(OWNER_PASSWORD);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForLoadState();
      expect(await page.locator('body').textContent()).toContain('Device connected');
      await page.context().close();
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`To sign in, open ${server.url}/v2/auth/device and enter the code ${shown}\n`);
    collectTokens(clientEnv);
    const users = await plat(clientEnv, ['--profile', 'device', 'users', 'list', '-o', 'ids']);
    expect(users.code, users.stderr).toBe(0);
  }, 60_000);

  it('8 processes started at once with an expiring token all succeed; one refreshes; the session survives', async () => {
    const file = join(clientEnv.PLAT_CONFIG_DIR as string, 'credentials.json');
    const json = JSON.parse(readFileSync(file, 'utf8'));
    const before = json.profiles.remote.refreshToken as string;
    json.profiles.remote.expiresAt = new Date(Date.now() - 1000).toISOString();
    // Written the way the CLI writes it (0600); the CLI reads it back under its lock.
    writeFileSync(file, JSON.stringify(json), { mode: 0o600 });

    const runs = await Promise.all(
      Array.from({ length: 8 }, () => plat(clientEnv, ['--verbose', 'users', 'list', '-o', 'ids'])),
    );
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^user_\w+\n/);
    }
    expect(runs.filter((run) => /POST \S+\/v2\/auth\/token · 200/.test(run.stderr))).toHaveLength(1);
    const after = collectTokens(clientEnv).remote;
    expect(after.refreshToken).not.toBe(before);
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 3000_000);
    // No reuse was detected: the session lives on, and refreshes again later.
    const later = await plat(clientEnv, ['whoami', '-o', 'ids']);
    expect(later.code, later.stderr).toBe(0);
    const token = await plat(clientEnv, ['auth', 'token']);
    expect(token.stdout).toBe(`${after.accessToken}\n`);
    transcript.splice(transcript.indexOf(token), 1); // the one command that prints a token, on purpose
  }, 60_000);

  it('logout revokes the session at the server and removes the tokens', async () => {
    const { accessToken } = collectTokens(clientEnv).remote;
    const r = await plat(clientEnv, ['--verbose', 'logout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/POST \S+\/v2\/auth\/revoke · 200/);
    const dead = await fetch(`${server.url}/v2/auth/whoami`, { headers: { Authorization: `Bearer ${accessToken}` } });
    expect(dead.status).toBe(401);
    expect((await plat(clientEnv, ['users', 'list'])).code).toBe(3);
  }, 60_000);

  it('no secret in anything printed, in the --verbose logs, the server log or config.json', () => {
    expect(transcript.length).toBeGreaterThan(15);
    expect(tokens.size).toBeGreaterThanOrEqual(5);
    expect(codes.filter(Boolean)).toHaveLength(5);
    const printed = transcript.map((t) => t.stdout + t.stderr).join('\n');
    const configs = [clientEnv, serverEnv].map((e) =>
      readFileSync(join(e.PLAT_CONFIG_DIR as string, 'config.json'), 'utf8'),
    );
    for (const [where, text] of [
      ['output', printed],
      ['server log', server.log()],
      ['config.json', configs.join('\n')],
    ] as const) {
      for (const secret of [OWNER_PASSWORD, IVY_PASSWORD, OLD_PASSWORD, ...codes, ...tokens]) {
        expect(text.includes(secret), `a secret in the ${where}`).toBe(false);
      }
    }
  });
});
