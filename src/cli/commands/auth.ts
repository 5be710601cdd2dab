import type { Command } from 'commander';
import { shownDb } from '../../config/database-url.js';
import { PLAN_LIMITS } from '../../contract/limits.js';
import type { Context } from '../context.js';
import { type ActiveCredential, isSignedIn } from '../credential.js';
import { NotAuthenticatedError } from '../errors.js';
import type { Output } from '../output/result.js';
import { col } from '../output/view.js';
import { addVerbs, verb } from '../verb.js';

/** One line of `auth status`: what was chosen and why. */
interface StatusRow {
  field: string;
  value: string;
  why: string;
}

const statusView = {
  columns: [col('SETTING', 'field'), col('VALUE', 'value'), col('WHY', 'why')],
  id: (r: StatusRow) => r.value,
};

function credentialRow(c: ActiveCredential | undefined, storeLocation: string): StatusRow {
  if (!c) return { field: 'credential', value: 'none', why: `nothing in PLAT_API_KEY, PLAT_TOKEN or ${storeLocation}` };
  return { field: 'credential', value: `${c.type} (${c.source})`, why: c.why };
}

/** What is known of a token without sending it anywhere: expiry, scopes, issuer, and whether it refreshes. */
interface TokenFacts {
  expiresAt: string | null;
  scopes: string[] | null;
  issuer: string | null;
  refreshable: boolean;
}

/** The claims of a JWT, read without verifying it (only to describe `PLAT_TOKEN`; the server verifies). */
function unverifiedClaims(token: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function tokenFacts(c: ActiveCredential | undefined): TokenFacts | undefined {
  if (!c || c.type !== 'access token') return undefined;
  if (isSignedIn(c)) {
    const s = c.stored.credential;
    const refreshable = Boolean(s.refreshToken && s.issuer);
    return { expiresAt: s.expiresAt ?? null, scopes: s.scopes ?? null, issuer: s.issuer ?? null, refreshable };
  }
  const claims = unverifiedClaims((c.headers.Authorization ?? '').replace(/^Bearer /, ''));
  return {
    expiresAt: typeof claims.exp === 'number' ? new Date(claims.exp * 1000).toISOString() : null,
    scopes: Array.isArray(claims.scopes) ? claims.scopes.map(String) : null,
    issuer: typeof claims.iss === 'string' ? claims.iss : null,
    refreshable: false,
  };
}

function tokenRows(t: TokenFacts, now: Date): StatusRow[] {
  const left = t.expiresAt ? Date.parse(t.expiresAt) - now.getTime() : Number.NaN;
  let why = 'unknown';
  if (Number.isFinite(left)) {
    const state = left > 0 ? `in ${Math.floor(left / 60_000)} min` : 'expired';
    why = t.refreshable ? `${state}; refreshed when under a minute is left` : `${state}; not refreshable`;
  }
  return [
    { field: 'expires', value: t.expiresAt ?? 'unknown', why },
    {
      field: 'scopes',
      value: t.scopes ? t.scopes.join(',') : 'unknown',
      why: t.scopes ? `${t.scopes.length} granted` : 'not recorded',
    },
    { field: 'issuer', value: t.issuer ?? 'unknown', why: t.refreshable ? 'refreshes and sign-out go here' : '' },
  ];
}

/**
 * The rate limit of the organization's plan, asked of `GET /auth/whoami` (which every credential may call). Without a
 * credential, or when the server cannot be reached, the row says why instead of failing the whole status.
 */
async function limitsRow(ctx: Context, credential: ActiveCredential | undefined): Promise<StatusRow> {
  if (!credential) return { field: 'rate limit', value: 'unknown', why: 'no credential to ask with' };
  try {
    const who = await (await ctx.client()).auth.whoami();
    const plan = who.organization.plan;
    const rule = PLAN_LIMITS[plan];
    return {
      field: 'rate limit',
      value: `${rule.perMinute}/min, burst ${rule.burst}`,
      why: `plan ${plan} of ${who.organization.id}, per credential`,
    };
  } catch (err) {
    return { field: 'rate limit', value: 'unknown', why: `could not ask the server: ${(err as Error).message}` };
  }
}

const status = verb<Record<string, never>>({
  name: 'status',
  summary:
    "Show the profile, endpoint, organization, credential and the plan's rate limit commands use, and why (never the secret)",
  examples: ['plat auth status', 'plat --profile prod auth status --json'],
  parse: () => ({}),
  run: async (_o, ctx): Promise<Output> => {
    const r = await ctx.settings();
    await ctx.endpoint(); // the embedded platform, made on first use: its key is the credential to show
    const credential = await ctx.credential();
    const store = await ctx.credentials();
    const token = tokenFacts(credential);
    const db = r.db === undefined ? null : shownDb(r.db);
    const endpoint = r.kind === 'embedded' ? `embedded ${db}` : (r.baseUrl as string);
    const rows: StatusRow[] = [
      { field: 'profile', value: r.profile, why: r.why.profile },
      { field: 'endpoint', value: `${endpoint}${r.sandbox ? ' (sandbox)' : ''}`, why: r.why.endpoint },
      { field: 'organization', value: r.org ?? "the credential's own", why: r.why.org },
      credentialRow(credential, store.location),
      ...(token ? tokenRows(token, ctx.clock()) : []),
      { field: 'store', value: store.kind, why: store.location },
    ];
    const limits = await limitsRow(ctx, credential);
    rows.push(limits);
    const json = {
      profile: { name: r.profile, why: r.why.profile },
      endpoint: { kind: r.kind, url: r.baseUrl ?? null, db, sandbox: r.sandbox, why: r.why.endpoint },
      organization: { id: r.org ?? null, why: r.why.org },
      credential: credential
        ? { type: credential.type, source: credential.source, why: credential.why, ...(token && { token }) }
        : null,
      store: { kind: store.kind, location: store.location },
      rateLimit: { value: limits.value, why: limits.why },
    };
    return { kind: 'list', items: rows, view: statusView, json };
  },
});

const token = verb<Record<string, never>>({
  name: 'token',
  summary: 'Print the access token (refreshed first if it expires within a minute) — the one command that prints it',
  examples: ['curl -H "Authorization: Bearer $(plat auth token)" http://127.0.0.1:8080/v2/auth/whoami'],
  parse: () => ({}),
  run: async (_o, ctx): Promise<Output> => {
    await ctx.endpoint();
    const credential = await ctx.credential();
    if (!credential) throw new NotAuthenticatedError('no credentials: run plat login');
    if (credential.type !== 'access token') {
      throw new NotAuthenticatedError(
        `the credential is an API key (${credential.why}), not an access token; sign in with plat login`,
      );
    }
    const session = await ctx.tokenSession();
    const value = session
      ? await session.accessToken()
      : (credential.headers.Authorization ?? '').replace(/^Bearer /, '');
    return { kind: 'text', text: `${value}\n` };
  },
});

/** `plat auth …` (signing in and out are `plat login` and `plat logout`). */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [status, token]);
}
