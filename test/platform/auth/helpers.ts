import { createHash, randomBytes } from 'node:crypto';
import type { OrgRole } from '../../../src/contract/permissions.js';
import type { UserStatus } from '../../../src/contract/users.js';
import { GENERATED_PASSWORD_COST, hashPassword, type ScryptCost } from '../../../src/platform/auth/passwords.js';
import { fixedClock, sequentialIds } from '../../../src/platform/clock.js';
import { type AuthOptions, createPlatform, type Platform } from '../../../src/platform/index.js';
import { bootstrap } from '../../../src/platform/operations/bootstrap.js';
import { testDatabase } from '../../helpers/backend.js';
import { conformant } from '../../helpers/conformance.js';
import { baseOf } from '../../helpers/internals.js';
import { type CallOptions, type Reply, send } from '../../helpers/platform.js';

export const ORIGIN = 'http://plat.test';
export const AUTH_URL = `${ORIGIN}/v2/auth`;
export const OWNER_EMAIL = 'owner@acme.test';
export const OWNER_PASSWORD = 'correct horse battery staple';
export const REDIRECT = 'http://127.0.0.1:49152/callback';

/**
 * Seeded passwords use the generated passwords' small cost: what is under test is the flow (passwords.test.ts covers
 * the real cost), and a hash at a cost below both would be replaced at each first sign-in (`needsRehash`).
 */
const SEED_COST: ScryptCost = GENERATED_PASSWORD_COST;

/** A PKCE pair (S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An in-process platform with a fixed clock, whose owner has a password. */
export interface AuthTestPlatform {
  platform: Platform;
  clock: ReturnType<typeof fixedClock>;
  orgId: string;
  ownerId: string;
  ownerKey: string;
  logs: string[];
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  /** A member with a password (in the bootstrap organization unless `orgId`; active unless `status`). */
  addUser(u: {
    email: string;
    password?: string;
    role?: OrgRole;
    orgId?: string;
    name?: string;
    status?: UserStatus;
  }): Promise<string>;
  setPassword(userId: string, password: string): Promise<void>;
  fetch(request: Request): Promise<Response>;
}

/** Builds the platform; `auth` passes sign-in options through to createPlatform. */
export async function authorizePlatform(opts: { auth?: AuthOptions } = {}): Promise<AuthTestPlatform> {
  const clock = fixedClock('2026-01-01T00:00:00.000Z');
  const logs: string[] = [];
  const platform = await createPlatform({
    ...(await testDatabase()),
    clock,
    ids: sequentialIds(),
    publicUrl: ORIGIN,
    logger: (line) => logs.push(line),
    limits: { enabled: false },
    auth: opts.auth,
  });
  const base = baseOf(platform);
  const boot = await bootstrap(base, { orgName: 'Acme', email: OWNER_EMAIL, name: 'Olive Owner' });
  const setPassword = async (userId: string, password: string) =>
    base.stores.users.setPassword(userId, await hashPassword(password, SEED_COST), base.now());
  await setPassword(boot.userId, OWNER_PASSWORD);
  return {
    platform,
    clock,
    logs,
    orgId: boot.organizationId,
    ownerId: boot.userId,
    ownerKey: boot.apiKey,
    call: (method, path, o) => send(platform.fetch, ORIGIN, boot.apiKey, method, path, o),
    fetch: (r) => platform.fetch(r),
    setPassword,
    addUser: async (u) => {
      const existing = await base.stores.users.accountByEmail(u.email);
      const userId = existing?.id ?? base.ids('user');
      if (!existing) await base.stores.users.insertAccount(userId, u.email, true, base.now());
      await base.stores.users.insertMembership({
        orgId: u.orgId ?? boot.organizationId,
        userId,
        email: u.email,
        name: u.name ?? null,
        role: u.role ?? 'member',
        status: u.status ?? 'active',
        now: base.now(),
      });
      if (u.password) await setPassword(userId, u.password);
      return userId;
    },
  };
}

/** A minimal browser: keeps cookies, never follows redirects, reads forms. */
export class FormBrowser {
  readonly cookies = new Map<string, string>();
  private readonly fetcher: (r: Request) => Promise<Response>;
  /** Each exchange with the platform is checked against its OpenAPI document (helpers/conformance.ts). */
  constructor(
    fetcher: (r: Request) => Promise<Response>,
    private readonly headers: Record<string, string> = {},
  ) {
    this.fetcher = conformant(fetcher);
  }

  /** Sends one request (a form when `form` is given) and reads the answer. */
  async send(
    method: string,
    url: string,
    form?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; text: string; location: string | null }> {
    const headers = new Headers(this.headers);
    if (this.cookies.size > 0) headers.set('Cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    let body: string | undefined;
    if (form) {
      headers.set('Content-Type', 'application/x-www-form-urlencoded');
      body = new URLSearchParams(form).toString();
    }
    const res = await this.fetcher(new Request(url, { method, headers, body, redirect: 'manual' }));
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair as string).indexOf('=');
      this.cookies.set((pair as string).slice(0, eq).trim(), (pair as string).slice(eq + 1).trim());
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  get(url: string) {
    return this.send('GET', url);
  }
  post(url: string, form: Record<string, string>) {
    return this.send('POST', url, form);
  }
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The hidden (and checked radio) fields of a page's form, unescaped. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input ([^>]*)>/g)) {
    const attrs = m[1] as string;
    const type = /type="([^"]*)"/.exec(attrs)?.[1];
    const name = /name="([^"]*)"/.exec(attrs)?.[1];
    const value = /value="([^"]*)"/.exec(attrs)?.[1] ?? '';
    if (!name) continue;
    if (type === 'hidden' || (type === 'radio' && / checked/.test(attrs))) {
      fields[name] = value.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] as string);
    }
  }
  return fields;
}

/** `{auth_url}/authorize?…` for plat-cli with PKCE and a state, plus `extra`. */
export function authorizeUrl(authUrl: string, challenge: string, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: 'plat-cli',
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    ...extra,
  });
  return `${authUrl}/authorize?${q}`;
}

/** Opens the login page and posts the form; returns the final answer (a redirect, or a page). */
export async function signIn(
  browser: FormBrowser,
  url: string,
  email: string,
  password: string,
  action = `${new URL(url).origin}/v2/auth/authorize`,
) {
  const page = await browser.get(url);
  if (page.status !== 200) return page;
  return browser.post(action, { ...formFields(page.text), email, password });
}

/** Runs the code flow in-process up to the code; returns the code and the verifier. */
export async function authorizationCode(
  t: AuthTestPlatform,
  opts: { email?: string; password?: string; extra?: Record<string, string> } = {},
): Promise<{ code: string; verifier: string; challenge: string; location: URL }> {
  const { verifier, challenge } = pkce();
  const browser = new FormBrowser(t.fetch);
  const r = await signIn(
    browser,
    authorizeUrl(AUTH_URL, challenge, opts.extra),
    opts.email ?? OWNER_EMAIL,
    opts.password ?? OWNER_PASSWORD,
  );
  if (r.status !== 303 || !r.location) throw new Error(`sign-in did not redirect: ${r.status} ${r.text.slice(0, 500)}`);
  const location = new URL(r.location);
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code in ${r.location}`);
  return { code, verifier, challenge, location };
}

/** `POST /v2/auth/token` form-encoded. */
export async function tokenRequest(
  fetcher: (r: Request) => Promise<Response>,
  fields: Record<string, string>,
  origin = ORIGIN,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetcher(
    new Request(`${origin}/v2/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }),
  );
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** The code grant's token request for `authorizationCode`'s result. */
export function redeem(t: AuthTestPlatform, code: string, verifier: string, extra: Record<string, string> = {}) {
  return tokenRequest(t.fetch, {
    grant_type: 'authorization_code',
    client_id: 'plat-cli',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    ...extra,
  });
}

/** Signs in and redeems: a fresh token set. */
export async function tokensFor(
  t: AuthTestPlatform,
  opts: { email?: string; password?: string; extra?: Record<string, string> } = {},
) {
  const { code, verifier } = await authorizationCode(t, opts);
  const r = await redeem(t, code, verifier);
  if (r.status !== 200) throw new Error(`token request failed: ${JSON.stringify(r.body)}`);
  return r.body as { access_token: string; refresh_token: string; expires_in: number; scope: string };
}

/** Headers for an API call with an access token. */
export function withToken(token: string, headers: Record<string, string> = {}) {
  return { key: null, headers: { Authorization: `Bearer ${token}`, ...headers } };
}
