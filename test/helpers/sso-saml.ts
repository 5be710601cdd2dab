import { inflateRawSync } from 'node:zlib';
import { afterEach } from 'vitest';
import type { SsoPut } from '../../src/contract/sso.js';
import type { BaseCtx } from '../../src/platform/context.js';
import { signInUrl } from '../../src/platform/sso/saml.js';
import { newSsoRequest } from '../../src/platform/sso/sign-in.js';
import type { StoredSso } from '../../src/platform/store/sso.js';
import type { SsoContinuation, SsoRequest } from '../../src/platform/store/sso-sign-in.js';
import { pkce, REDIRECT } from '../platform/auth/helpers.js';
import { dbCount } from './db.js';
import { baseOf } from './internals.js';
import { type TestPlatform, testPlatform } from './platform.js';
import { postedForm, type SamlAuthnRequest, type SamlIdp, type SamlIdpOptions, startSamlIdp } from './saml-idp.js';

// A SAML sign-in into a platform, from the request it records to the response its ACS receives, for
// test/platform/sso-saml*.test.ts.

/** The configuration the tests save: the IdP's metadata by URL; e-mail, name and one more attribute mapped. */
export function samlConfigBody(idp: SamlIdp, extra: Partial<SsoPut> = {}): SsoPut {
  return {
    protocol: 'saml',
    provider: 'custom-saml',
    enabled: true,
    metadataUrl: idp.metadataUrl,
    attributeMapping: { email: 'email', name: 'name', department: 'dept' },
    domains: ['acme.test'],
    ...extra,
  } as SsoPut;
}

/** An SP-initiated sign-in sent to the IdP: the platform's request, the AuthnRequest the IdP got, its page's form. */
export interface SentSignIn {
  request: SsoRequest;
  /** The PKCE verifier of the OAuth request it continues. */
  verifier: string;
  /** The sign-in URL the platform made (the IdP's SSO URL with SAMLRequest and RelayState). */
  url: string;
  /** The AuthnRequest as the IdP parsed it. */
  sent: SamlAuthnRequest;
  /** What the IdP's page posts to the ACS. */
  form: { action: string; fields: Record<string, string> };
}

/** The continuation of a `plat login` through the browser: the CLI's client, its loopback, PKCE. */
export function authorizeContinuation(challenge: string, state = 'st-saml'): SsoContinuation {
  return {
    kind: 'authorize',
    clientId: 'plat-cli',
    redirectUri: REDIRECT,
    state,
    codeChallenge: challenge,
    scopes: null,
    ipAddress: null,
    userAgent: null,
  };
}

/**
 * Records a sign-in request for the organization (as the sign-in page will), follows the platform's sign-in URL to the
 * real IdP over loopback, and reads the auto-posting page it answers.
 */
export async function sendSignIn(
  base: BaseCtx,
  orgId: string,
  idp: SamlIdp,
  continuation?: (challenge: string) => SsoContinuation,
): Promise<SentSignIn> {
  const config = (await base.stores.sso.get(orgId)) as StoredSso;
  const { verifier, challenge } = pkce();
  const request = await newSsoRequest(base, config, (continuation ?? authorizeContinuation)(challenge));
  const url = await signInUrl(base, config, request);
  const res = await fetch(url);
  const page = await res.text();
  if (res.status !== 200) throw new Error(`the IdP answered ${res.status}: ${page}`);
  const sent = idp.requests.at(-1) as SamlAuthnRequest;
  return { request, verifier, url, sent, form: postedForm(page) };
}

/** The AuthnRequest XML carried by a sign-in URL (HTTP-Redirect binding: deflated, base64). */
export function authnRequestOf(url: string): string {
  const encoded = new URL(url).searchParams.get('SAMLRequest') ?? '';
  return inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
}

/** A form POST through `fetcher`, read whole; redirects are not followed. */
export async function postForm(
  fetcher: (r: Request) => Promise<Response>,
  url: string,
  fields: Record<string, string | undefined>,
): Promise<{ status: number; headers: Headers; text: string; location: string | null }> {
  const body = new URLSearchParams(
    Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString();
  const res = await fetcher(
    new Request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    }),
  );
  return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The message of a platform page (`#message`), unescaped. */
export function pageMessage(html: string): string | undefined {
  const m = /<p role="(?:alert|status)" id="message">([\s\S]*?)<\/p>/.exec(html)?.[1];
  return m?.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] as string);
}

/** The way back a failure page offers (`#back`), unescaped. */
export function backLink(html: string): string | undefined {
  return /<a id="back" href="([^"]*)">/
    .exec(html)?.[1]
    ?.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] as string);
}

/** A platform whose organization signs in through a real SAML IdP on loopback (the platform's fixed clock for both). */
export interface SamlPlatform {
  t: TestPlatform;
  idp: SamlIdp;
  base: BaseCtx;
  spEntityId: string;
  acsUrl: string;
  /** Sends an SP-initiated sign-in to the IdP (a `plat login` through the browser, unless `continuation`). */
  signIn(continuation?: (challenge: string) => SsoContinuation): Promise<SentSignIn>;
  /** Posts a form to the organization's ACS, in-process. */
  postAcs(fields: Record<string, string | undefined>): ReturnType<typeof postForm>;
  /** What a sign-in may create, counted: accounts, memberships, identities, codes, sessions. */
  created(): Promise<Created>;
  /** The organization's events of `type`, oldest first. */
  events(type: string): Promise<any[]>;
  close(): Promise<void>;
}

const CREATED = [
  'accounts',
  'org_users',
  'sso_identities',
  'authorization_codes',
  'sessions',
  'refresh_tokens',
] as const;
/** Rows of each table a sign-in may write to. */
export type Created = Record<(typeof CREATED)[number], number>;

/**
 * Starts the IdP (options passed on), configures single sign-on through it (`sso` overrides the body) on a platform
 * made with `platform`'s options.
 */
export async function samlPlatform(
  opts: { idp?: SamlIdpOptions; sso?: Partial<SsoPut>; platform?: Parameters<typeof testPlatform>[0] } = {},
): Promise<SamlPlatform> {
  const t = await testPlatform(opts.platform);
  const idp = await startSamlIdp({ clock: t.clock, ...opts.idp });
  const body = samlConfigBody(idp, opts.sso);
  // Single sign-on takes verified domains only: the operator vouches, as `plat local domains verify` does.
  for (const domain of body.domains ?? []) await t.platform.admin.verifyDomain(t.orgId, domain);
  const put = await t.call('PUT', `/organizations/${t.orgId}/sso`, { body });
  if (put.status !== 200) throw new Error(`PUT sso answered ${put.status}: ${JSON.stringify(put.body)}`);
  const base = baseOf(t.platform);
  const { spEntityId, acsUrl } = put.body as { spEntityId: string; acsUrl: string };
  return {
    t,
    idp,
    base,
    spEntityId,
    acsUrl,
    signIn: (continuation) => sendSignIn(base, t.orgId, idp, continuation),
    postAcs: (fields) => postForm(t.platform.fetch, acsUrl, fields),
    created: async () =>
      Object.fromEntries(
        await Promise.all(CREATED.map(async (table) => [table, await dbCount(base, table)])),
      ) as Created,
    events: async (type) => {
      const r = await t.call('GET', `/organizations/${t.orgId}/events?limit=100`);
      return (r.body.data as any[]).filter((e) => e.type === type).reverse();
    },
    close: () => idp.close(),
  };
}

/** A test file's `setup`: each platform it makes (and its IdP) is closed after the test. */
export function samlPlatforms(): (opts?: Parameters<typeof samlPlatform>[0]) => Promise<SamlPlatform> {
  const running: SamlPlatform[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.close()));
  });
  return async (opts) => {
    const s = await samlPlatform(opts);
    running.push(s);
    return s;
  };
}
