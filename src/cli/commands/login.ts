import { type Command, Option } from 'commander';
import type { StoredCredential } from '../../auth/credential-store.js';
import type { LoginOptions as FlowOptions } from '../../auth/login.js';
import { PERMISSIONS } from '../../contract/permissions.js';
import { batchEmailSchema } from '../../contract/users.js';
import { completes } from '../completion-values.js';
import { newClient, oauthTransport, openTransport } from '../connection.js';
import type { Context, Transport } from '../context.js';
import { InvalidValueError } from '../errors.js';
import { record } from '../output/result.js';
import { notice } from '../output/terminal.js';
import { type Column, col } from '../output/view.js';
import { positiveInt } from '../parse.js';
import { type ServerProfile, type SignInTarget, signInTarget } from '../sign-in.js';
import { asLeaf } from '../verb.js';

interface LoginOptions {
  browser: boolean;
  device: boolean;
  scopes?: string[];
  timeoutSeconds: number;
  email?: string;
}

/** What `login` prints: who is signed in where, until when, and where the tokens are kept (never the tokens). */
interface LoginRow {
  profile: string;
  endpoint: string;
  user: { id: string; email: string };
  organization: { id: string; name: string };
  scopes: string[];
  expiresAt: string | null;
  store: string;
}

const columns: Column<LoginRow>[] = [
  col('PROFILE', 'profile'),
  col('ENDPOINT', 'endpoint'),
  { header: 'USER', get: (r) => r.user.email },
  { header: 'ORGANIZATION', get: (r) => `${r.organization.name} (${r.organization.id})` },
  { header: 'SCOPES', get: (r) => r.scopes.length },
  col('EXPIRES', 'expiresAt'),
  col('STORE', 'store'),
];
const loginView = { columns, id: (r: LoginRow) => r.user.id };

const DEFAULT_TIMEOUT_SECONDS = 300;

/** `--scopes a,b c` → `['a', 'b', 'c']`, each a permission the API knows (exit 7 otherwise, as the API would). */
function parseScopes(raw: string[] | undefined): string[] | undefined {
  if (!raw) return undefined;
  const scopes = [...new Set(raw.flatMap((s) => s.split(/[\s,]+/)).filter(Boolean))];
  const known = new Set<string>(PERMISSIONS);
  const unknown = scopes.filter((s) => !known.has(s));
  if (unknown.length) {
    throw new InvalidValueError(
      `unknown scope ${unknown.join(', ')}; scopes are permissions: ${PERMISSIONS.join(', ')}`,
    );
  }
  return scopes;
}

/** `--email`: an address as the sign-in page takes it (exit 7 otherwise, as the page would refuse it). */
function parseEmail(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const email = batchEmailSchema.safeParse(raw);
  if (!email.success) throw new InvalidValueError(`--email: "${raw}" is not an e-mail address`);
  return email.data;
}

/** Which way to sign in: the device grant when asked or when no browser can reach the user; else the browser. */
async function signInWith(o: LoginOptions, ctx: Context, base: FlowOptions): Promise<StoredCredential> {
  const auth = await import('../../auth/login.js');
  if (o.device) return auth.loginWithDevice(base);
  if (!o.browser) return auth.loginWithBrowser(base);
  const { browserAvailability, openBrowser } = await import('../../auth/browser.js');
  const can = browserAvailability(ctx.deps.env);
  if (!can.ok) {
    ctx.io.err(`No browser can be opened here: ${can.why}. Signing in with a code instead (--device).`);
    return auth.loginWithDevice(base);
  }
  const open = ctx.deps.openBrowser ?? ((url: string) => openBrowser(url, ctx.deps.env));
  return auth.loginWithBrowser({ ...base, open });
}

/** The row `login` prints, from `GET /auth/whoami` with the new token (which also proves that it works). */
async function describe(
  ctx: Context,
  t: SignInTarget,
  c: StoredCredential,
  transport: Transport,
  store: string,
): Promise<LoginRow> {
  const credential = {
    source: 'store' as const,
    type: 'access token' as const,
    why: '',
    headers: { Authorization: `Bearer ${c.accessToken}` },
  };
  const client = await newClient(
    { credential, transport },
    { orgId: t.r.org, globals: ctx.globals(), deps: ctx.deps, log: (l) => ctx.io.err(l) },
  );
  const me = await client.auth.whoami();
  return {
    profile: t.r.profile,
    endpoint: t.r.baseUrl,
    user: { id: me.user.id, email: me.user.email },
    organization: { id: me.organization.id, name: me.organization.name },
    scopes: c.scopes ?? me.scopes,
    expiresAt: c.expiresAt ?? me.expiresAt,
    store,
  };
}

/**
 * Records what a successful sign-in changed in the configuration: the profile it made, and the current profile when
 * the sign-in replaced the embedded one in use.
 */
async function saveProfile(ctx: Context, t: SignInTarget): Promise<void> {
  const makeCurrent = t.instead?.makeCurrent === true;
  if (!t.newProfile && !makeCurrent) return;
  const file = await ctx.config();
  const config = file.current;
  const next = t.newProfile ? { ...config, profiles: { ...config.profiles, [t.r.profile]: t.newProfile } } : config;
  await file.save(makeCurrent ? { ...next, currentProfile: t.r.profile } : next);
  if (t.newProfile && !t.instead) {
    notice(
      ctx,
      `Added profile "${t.r.profile}" for ${t.r.baseUrl}; use it with --profile ${t.r.profile}, or: plat profiles use ${t.r.profile}`,
    );
  }
}

/**
 * After a sign-in in place of the embedded profile: which profile commands now use, and how to go back or there
 * (nothing when the server's profile was the current one already).
 */
function insteadNotice(profile: string, i: ServerProfile): string | undefined {
  if (!i.makeCurrent && i.isCurrent) return undefined;
  if (i.makeCurrent) {
    return `Profile "${profile}" is now the current one; back to the embedded platform with: plat profiles use ${i.embedded}`;
  }
  return (
    `Profile "${i.embedded}" stays in use (${i.why}); use this sign-in with --profile ${profile}, ` +
    `or make it the current profile: plat profiles use ${profile}`
  );
}

async function login(o: LoginOptions, ctx: Context) {
  const t = await signInTarget(ctx);
  const settings = { globals: ctx.globals(), deps: ctx.deps, log: (line: string) => ctx.io.err(line) };
  const transport = await openTransport(ctx.deps, t.r);
  try {
    const { issuerOf } = await import('../../auth/oidc.js');
    const credential = await signInWith(o, ctx, {
      issuer: issuerOf(t.r.baseUrl),
      transport: oauthTransport(transport, settings),
      scopes: o.scopes,
      org: t.r.org,
      email: o.email,
      timeoutMs: o.timeoutSeconds * 1000,
      clock: ctx.clock,
      say: (line) => ctx.io.err(line),
    });
    const store = await ctx.credentials();
    await store.set(t.account, credential);
    await saveProfile(ctx, t);
    const row = await describe(ctx, t, credential, transport, store.location);
    const who = `${row.user.email} (organization ${row.organization.id})`;
    if (t.instead) {
      const which = t.instead.reused ? `the profile for ${row.endpoint}` : `new profile for ${row.endpoint}`;
      notice(
        ctx,
        `Signed in to ${row.endpoint} as ${who} under profile "${row.profile}" (${which}); ` +
          `the tokens are stored in ${store.location}.`,
      );
      const next = insteadNotice(row.profile, t.instead);
      if (next) notice(ctx, next);
    } else {
      notice(ctx, `Signed in to ${row.endpoint} as ${who}; the tokens are stored in ${store.location}.`);
    }
    return record(row, loginView, true);
  } finally {
    await transport.close();
  }
}

/** `plat login` */
export function register(cmd: Command, ctx: Context): void {
  asLeaf<LoginOptions>(cmd, ctx, {
    summary:
      'Sign in to a remote instance in the browser (PKCE, loopback redirect) or with a code (--device); ' +
      'from the embedded profile, --base-url URL names the server',
    examples: [
      'plat login',
      'plat login --base-url http://127.0.0.1:8080',
      'plat --profile dev login --base-url http://127.0.0.1:8080',
      'plat login --no-browser --scopes users:read,projects:read',
      'plat login --device',
    ],
    options: (c) => {
      c.option('--no-browser', 'do not open a browser: print the sign-in URL (on stderr) and wait for it');
      c.option(
        '--device',
        'sign in with a code entered on another device (RFC 8628); the default without a display or over SSH',
      );
      const scopes = new Option(
        '--scopes <scopes...>',
        'permissions to ask for, comma- or space-separated (default: all of yours)',
      );
      c.addOption(completes(scopes, PERMISSIONS));
      c.option('--timeout <seconds>', 'how long to wait for the sign-in', positiveInt, DEFAULT_TIMEOUT_SECONDS);
      c.option(
        '--email <email>',
        "your e-mail (sent as login_hint): a single sign-on domain goes straight to your organization's identity provider",
      );
    },
    parse: (_args, raw) => ({
      browser: raw.browser !== false,
      device: raw.device === true,
      scopes: parseScopes(raw.scopes),
      timeoutSeconds: raw.timeout,
      email: parseEmail(raw.email),
    }),
    run: login,
  });
}
