// The OpenID provider that plat's single sign-on tests sign in through: oidc-provider 9, real, on 127.0.0.1.
//
//   const idp = await startOidcIdp({ users: { alice: { email: 'alice@acme.test', name: 'Alice Adams' } } });
//   idp.setRedirectUris([`${platformUrl}/v2/sso/oidc/${orgId}/callback`]);
//   // …configure the organization's SSO with issuer idp.issuer, client idp.clientId / idp.clientSecret…
//   const back = await idp.completeSignIn(whereThePlatformSentTheBrowser, 'alice'); // or signInOnPage(page, 'alice')
//   // …GET `back` from the platform (with the browser's cookies of the platform) and assert what it did.
//   idp.forge({ idTokenClaims: { nonce: 'forged' } }); // the next sign-ins carry a token plat must refuse
//
// On Node 20 importing oidc-provider prints "Unsupported runtime. Use Node.js v22.x LTS…" once per process; it runs.
// Its tokens use the real clock (oidc-provider has no clock to inject), so a platform checking them must too.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { FormBrowser } from '../platform/auth/helpers.js';
import { type Forgery, forgeryMiddleware } from './oidc-idp-forge.js';
import { type IdpClaims, renderError, serveInteraction, signInOnPage } from './oidc-idp-login.js';
import { memoryAdapter } from './oidc-idp-store.js';

export type { Forgery, IdpClaims };
export { signInOnPage };

/** How to start the test IdP. Everything has a default; `redirectUris` may also come later. */
export interface OidcIdpOptions {
  /** A path for the issuer under its origin, as real IdPs have (`/realms/acme`, `/oauth2/default`). None by default. */
  path?: string;
  clientId?: string;
  clientSecret?: string;
  /** The relying party's callback URLs, matched exactly (`…/v2/sso/oidc/{orgId}/callback` for plat). */
  redirectUris?: string[];
  /** Accounts: sub → claims. Also reachable (and changeable) later as `idp.users`. */
  users?: Record<string, IdpClaims>;
  /** Claims beyond the standard ones to release with scope `profile`; those of the initial `users` are added. */
  extraClaims?: string[];
}

/** A real OpenID provider (oidc-provider 9) listening on 127.0.0.1, for the relying party's tests. */
export interface OidcIdp {
  /** `http://127.0.0.1:{port}{path}`: what the relying party is configured with. */
  readonly issuer: string;
  readonly origin: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly users: Map<string, IdpClaims>;
  /** Registers the relying party's callback URLs (replacing the previous ones); seen by the very next request. */
  setRedirectUris(uris: string[]): void;
  /** Makes the IdP misbehave from now on (`forge({})` makes it honest again). */
  forge(forgery: Forgery): void;
  /**
   * Signs `login` (a sub, or an account's e-mail) in at this IdP over plain HTTP with a fresh cookie jar, starting
   * from an authorization URL of this IdP, and returns where the IdP finally sends the browser: the relying party's
   * callback with `code`, `state` and `iss` (not followed). `state` replaces the request's state before the IdP sees
   * it, so the IdP itself answers with a state the relying party never issued.
   */
  completeSignIn(authorizationUrl: string | URL, login: string, opts?: { state?: string }): Promise<URL>;
  /** The person presses Cancel at the IdP: returns the callback URL with `error=access_denied` (not followed). */
  cancelSignIn(authorizationUrl: string | URL): Promise<URL>;
  /** The same authorization request sent to this IdP's authorization endpoint (a mix-up, with another IdP's URL). */
  authorizationUrlFor(request: string | URL): URL;
  close(): Promise<void>;
}

const STANDARD_CLAIMS = {
  openid: ['sub'],
  email: ['email', 'email_verified'],
  profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'picture', 'updated_at'],
};

/** Starts the IdP on an ephemeral port of 127.0.0.1. */
export async function startOidcIdp(opts: OidcIdpOptions = {}): Promise<OidcIdp> {
  const path = opts.path?.replace(/\/+$/, '') ?? '';
  const clientId = opts.clientId ?? 'plat';
  const clientSecret = opts.clientSecret ?? 'a client secret the test IdP shares with plat';
  const users = new Map(Object.entries(opts.users ?? {}));
  let redirectUris = opts.redirectUris ?? [];
  let forgery: Forgery = {};

  // The issuer holds the port, so the socket comes first and the provider is built once it is bound.
  let listener: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${path}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const standard = new Set(Object.values(STANDARD_CLAIMS).flat());
  const extra = [...(opts.extraClaims ?? []), ...[...users.values()].flatMap(Object.keys)].filter(
    (c) => !standard.has(c),
  );
  const provider = new Provider(issuer, {
    adapter: memoryAdapter(clientId, () => ({
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: redirectUris,
      // Registered as basic, but oidc-provider takes client_secret_post from such a client alike (client_auth.js).
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'test-idp-1', alg: 'RS256', use: 'sig' }] },
    // Distinct names: browsers share cookies between ports of 127.0.0.1, where the relying party also listens.
    cookies: {
      keys: [randomBytes(32).toString('base64url')],
      names: { session: 'test_idp_session', interaction: 'test_idp_interaction', resume: 'test_idp_resume' },
    },
    claims: { ...STANDARD_CLAIMS, profile: [...STANDARD_CLAIMS.profile, ...new Set(extra)] },
    // Claims of the requested scopes go into the ID token too, not only to userinfo: what Okta, Entra ID and Google
    // do, and what a relying party that reads only the ID token needs.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    renderError,
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${path}/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, sub: string) {
      if (!users.has(sub)) return undefined;
      return { accountId: sub, claims: async () => ({ ...users.get(sub), sub }) };
    },
    // Explicit lifetimes: the defaults are functions that print a notice on first use.
    ttl: { AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
  });
  provider.use(forgeryMiddleware(() => forgery, privateKey));

  const mine = (url: URL) =>
    url.origin === origin && (path === '' || url.pathname === path || url.pathname.startsWith(`${path}/`));
  const handle = provider.callback();
  listener = (req, res) => {
    const url = req.url ?? '/';
    if (!mine(new URL(url, origin))) return void res.writeHead(404).end();
    // Mounted under `path` the way Express mounts it: oidc-provider reads the mount path from `originalUrl`.
    const rest = url.slice(path.length);
    Object.assign(req, { originalUrl: url, url: rest.startsWith('/') ? rest : `/${rest}` });
    if (!/^\/interaction\/[^/?]+(\?|$)/.test(req.url ?? '')) return void handle(req, res);
    serveInteraction(provider, users, req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`test IdP: ${err.message}`);
    });
  };

  /** Follows the IdP's redirects with one cookie jar, fills the login form once, stops on leaving the IdP. */
  async function walk(start: string | URL, form: Record<string, string>, state?: string): Promise<URL> {
    let at = new URL(start);
    if (!mine(at)) throw new Error(`test IdP: ${at.href} is not an address of ${issuer}`);
    if (state !== undefined) at.searchParams.set('state', state);
    const browser = new FormBrowser((r) => fetch(r));
    let page = await browser.get(at.href);
    let posted = false;
    for (let hop = 0; hop < 10; hop++) {
      if (page.location) {
        const next = new URL(page.location, at);
        if (!mine(next)) return next;
        at = next;
        page = await browser.get(at.href);
      } else if (page.status === 200 && !posted && page.text.includes('<form method="post">')) {
        posted = true;
        page = await browser.post(at.href, form);
      } else {
        throw new Error(`test IdP answered ${page.status} at ${at.pathname}: ${gist(page.text)}`);
      }
    }
    throw new Error('test IdP: more than 10 redirects');
  }

  return {
    issuer,
    origin,
    clientId,
    clientSecret,
    users,
    setRedirectUris: (uris) => {
      redirectUris = [...uris];
    },
    forge: (f) => {
      forgery = { ...f };
    },
    completeSignIn: (url, login, o = {}) => walk(url, { login, action: 'sign-in' }, o.state),
    cancelSignIn: (url) => walk(url, { action: 'cancel' }),
    authorizationUrlFor: (request) => {
      const here = new URL(`${issuer}/auth`);
      here.search = new URL(request).search;
      return here;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/** What a page says, in one line: its alert when it has one (the login form's), else its text. */
function gist(html: string): string {
  const alert = /<p role="alert">(.*?)<\/p>/s.exec(html)?.[1];
  const text = (alert ?? html)
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))).slice(0, 400);
}
