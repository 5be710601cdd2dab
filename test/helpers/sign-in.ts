import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { type RunningServer, startServer } from '../../src/platform/server.js';
import { FormBrowser, formFields } from '../platform/auth/helpers.js';
import { testDatabase } from './backend.js';
import { baseOf } from './internals.js';
import type { Run } from './spawn.js';

export const OWNER_EMAIL = 'owner@acme.test';
export const OWNER_PASSWORD = 'an owner password for the CLI tests';

/** A real listener on 127.0.0.1:0 over a temporary database, whose owner has a password. */
export interface SignInServer {
  server: RunningServer;
  url: string;
  orgId: string;
  ownerId: string;
  close(): Promise<void>;
}

/** Starts the server; limits off unless asked (many sign-ins in a row would spend the token endpoint's burst). */
export async function signInServer(opts: { limits?: boolean; port?: number } = {}): Promise<SignInServer> {
  const dir = mkdtempSync(join(tmpdir(), 'plat-signin-'));
  const server = await startServer({
    ...(await testDatabase(join(dir, 'plat.db'))),
    port: opts.port ?? 0,
    logger: () => {},
    limits: opts.limits ? undefined : { enabled: false },
    auth: { devicePollInterval: 1 },
  });
  const boot = await bootstrap(baseOf(server.platform), {
    email: OWNER_EMAIL,
    orgName: 'Acme',
    password: OWNER_PASSWORD,
  });
  return {
    server,
    url: server.url,
    orgId: boot.organizationId,
    ownerId: boot.userId,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The sign-in URL `plat login` printed on stderr, if it did yet. */
export function authorizeUrlIn(stderr: string): string | undefined {
  return /^ {2}(http\S+\/auth\/authorize\?\S+)$/m.exec(stderr)?.[1];
}

/** The device page URL (with the user code) `plat login --device` printed on stderr, if it did yet. */
export function deviceUrlIn(stderr: string): string | undefined {
  return /\(or open (http\S+\/auth\/device\?user_code=\S+)\)$/m.exec(stderr)?.[1];
}

/**
 * Watches a `plat login` run's stderr for the first URL it prints — the sign-in page, or the device page with its
 * code: pass `watch` to startPlat, then `url(run.done)` resolves with it (and throws if the login ended first).
 */
export function loginUrlWatch(): { watch: (stderr: string) => void; url: (done: Promise<Run>) => Promise<string> } {
  let found: ((u: string) => void) | undefined;
  const printed = new Promise<string>((resolve) => (found = resolve));
  return {
    watch: (stderr) => {
      const url = authorizeUrlIn(stderr) ?? deviceUrlIn(stderr);
      if (url) found?.(url);
    },
    url: async (done) => {
      const first = await Promise.race([printed, done]);
      if (typeof first !== 'string') throw new Error(`login ended before printing a URL: ${first.stderr}`);
      return first;
    },
  };
}

/** What a person at a browser did: the pages' answers, and the authorization code that went to the CLI. */
export interface Visit {
  status: number;
  text: string;
  code?: string;
}

/** A person signing in at the printed URL over plain HTTP (cookies, CSRF token), then following the redirect. */
export async function signInAt(
  url: string,
  email = OWNER_EMAIL,
  password = OWNER_PASSWORD,
  code?: () => string,
): Promise<Visit> {
  const browser = new FormBrowser((r) => fetch(r));
  const page = await browser.get(url);
  if (page.status !== 200) return page;
  const action = `${new URL(url).origin}/v2/auth/authorize`;
  let done = await browser.post(action, { ...formFields(page.text), email, password });
  // The second-factor step (docs/mfa.md), for a person with an authenticator app: its code.
  if (code && done.status === 200 && done.text.includes('name="code"')) {
    done = await browser.post(action, { ...formFields(done.text), code: code() });
  }
  if (done.status !== 303 || !done.location) return done;
  const back = await browser.get(done.location);
  return { ...back, code: new URL(done.location).searchParams.get('code') ?? undefined };
}

/** A person approving a device sign-in on the device page (the code is filled in from the link). */
export async function approveDevice(url: string, email = OWNER_EMAIL, password = OWNER_PASSWORD): Promise<Visit> {
  const browser = new FormBrowser((r) => fetch(r));
  const page = await browser.get(url);
  const userCode = new URL(url).searchParams.get('user_code') ?? '';
  return browser.post(`${new URL(url).origin}/v2/auth/device`, {
    ...formFields(page.text),
    user_code: userCode,
    email,
    password,
    action: 'approve',
  });
}

/**
 * Plays the person for one `plat login`: watches stderr for the printed URL and signs in there (or approves the
 * device code). Pass `onStderr` to `runCli`; `visit` resolves with what the browser saw.
 */
export function person(
  how: { email?: string; password?: string; code?: () => string; before?: (url: string) => Promise<void> } = {},
) {
  let visit: Promise<Visit> | undefined;
  return {
    onStderr(text: string) {
      if (visit) return;
      const code = authorizeUrlIn(text);
      const device = deviceUrlIn(text);
      if (code) {
        visit = (async () => {
          await how.before?.(code);
          return signInAt(code, how.email, how.password, how.code);
        })();
      } else if (device) visit = approveDevice(device, how.email, how.password);
    },
    visit: () => visit,
  };
}

/** The credentials file of a CLI home, parsed. */
export function storedCredentials(configDir: string): Record<string, Record<string, any>> {
  return JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')).profiles;
}

/** Rewrites one profile's stored credential (to expire it, or spoil its access token). */
export function patchCredential(configDir: string, account: string, patch: Record<string, unknown>): void {
  const path = join(configDir, 'credentials.json');
  const json = JSON.parse(readFileSync(path, 'utf8'));
  json.profiles[account] = { ...json.profiles[account], ...patch };
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
}
