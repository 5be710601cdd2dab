import { join, resolve } from 'node:path';
import { API_BASE } from '../contract/endpoint.js';
import type { Config, Profile } from './config.js';
import { checkDatabaseUrl, databaseKey, isDatabaseUrl } from './database-url.js';
import { UsageError } from './errors.js';

/** The profile used when nothing names one: the embedded platform in `<dataDir>/local.db`. */
export const DEFAULT_PROFILE = 'local';

/** The global options that take part in resolution. */
export interface SettingsFlags {
  profile?: string;
  baseUrl?: string;
  org?: string;
  db?: string;
  /** `--database-url`: the embedded platform on this PostgreSQL database (exclusive with `db`). */
  databaseUrl?: string;
  sandbox?: boolean;
}

/** Where a command goes, and why (for `profiles show`, `auth status` and error messages). */
export interface Resolved {
  profile: string;
  kind: 'embedded' | 'remote';
  /** Remote only: the instance's base URL, ending in `/v2`. */
  baseUrl?: string;
  /**
   * Embedded only: the database file, or the PostgreSQL database's URL — with its password, to connect with: show it
   * only through `shownDb` (config/database-url.ts).
   */
  db?: string;
  /** The organization to send as `X-Org-Id`, if any. */
  org?: string;
  sandbox: boolean;
  /**
   * The credential store account of this endpoint: `<profile>`, `<profile>:sandbox` for its sandbox,
   * `<profile>@<database file>` for a `--db` other than the profile's own, and `<profile>@postgres://HOST:PORT/NAME`
   * for a PostgreSQL database (no credentials in it) — each database keeps its own key.
   */
  account: string;
  /**
   * Where the profile records the organization of this endpoint (a bootstrap, `orgs use`): `org` for its live
   * endpoint, `sandboxOrg` for its sandbox (another instance, with organizations of its own), none for a `--db`
   * other than the profile's own.
   */
  orgSlot?: 'org' | 'sandboxOrg';
  /** A human reason for each choice: "from --profile", "from PLAT_BASE_URL", "default (no configuration)"… */
  why: Record<'profile' | 'endpoint' | 'org', string>;
}

/** The input of `resolveSettings`: everything it reads is passed in, so it stays a pure function. */
export interface ResolveInput {
  flags: SettingsFlags;
  env: NodeJS.ProcessEnv;
  config: Config;
  dataDir: string;
  /** What a relative `--db` is relative to (default the process's working directory). */
  cwd?: string;
}

/**
 * Checks a base URL and puts it in canonical form: http(s), no trailing slash, `/v2` added when the URL has no path
 * (so `--base-url http://127.0.0.1:8080` works). A URL with a user name or password is refused without echoing it.
 */
export function normalizeBaseUrl(raw: string, why = 'base URL'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `invalid base URL "${raw}" (${why}): expected an http(s) URL such as https://api.example.com/v2`,
    );
  }
  if (url.username || url.password) {
    throw new UsageError(`the base URL (${why}) must not carry credentials; use plat login or PLAT_API_KEY`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`invalid base URL "${raw}" (${why}): only http and https are supported`);
  }
  if (url.search || url.hash) throw new UsageError(`invalid base URL "${raw}" (${why}): no query or fragment allowed`);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path === '' ? API_BASE : path}`;
}

/** `x.db` → `x-sandbox.db`: the embedded sandbox is a second database beside the live one. */
export function sandboxDbPath(db: string): string {
  return db.endsWith('.db') ? `${db.slice(0, -3)}-sandbox.db` : `${db}-sandbox`;
}

/** The profile's name and why it was chosen: `--profile`, `PLAT_PROFILE`, the current profile, else `local`. */
export function pickProfile(flags: SettingsFlags, env: NodeJS.ProcessEnv, config: Config): [string, string] {
  if (flags.profile) return [flags.profile, 'from --profile'];
  if (env.PLAT_PROFILE) return [env.PLAT_PROFILE, 'from PLAT_PROFILE'];
  if (config.currentProfile) return [config.currentProfile, 'current profile in config.json'];
  return [DEFAULT_PROFILE, 'default (no configuration)'];
}

/** The remote endpoint, if flags, environment or profile name one (in that order). */
function pickRemote(
  flags: SettingsFlags,
  env: NodeJS.ProcessEnv,
  name: string,
  p: Profile,
  sandbox: boolean,
): { url: string; why: string } | undefined {
  // An explicit --base-url is taken as the instance wanted, sandbox or not.
  if (flags.baseUrl) return { url: flags.baseUrl, why: 'from --base-url' };
  // A flag wins over the environment: --db or --database-url (without --base-url) asks for the embedded platform, so
  // PLAT_BASE_URL does not apply. A remote profile's own URL still does, and makes either a usage error below.
  if (env.PLAT_BASE_URL && !flags.db && flags.databaseUrl === undefined) {
    if (sandbox) {
      throw new UsageError('--sandbox cannot switch PLAT_BASE_URL to a sandbox: give the sandbox URL with --base-url');
    }
    return { url: env.PLAT_BASE_URL, why: 'from PLAT_BASE_URL' };
  }
  if (sandbox && p.sandboxBaseUrl) return { url: p.sandboxBaseUrl, why: `sandbox URL of profile "${name}"` };
  if (p.baseUrl) {
    if (sandbox) {
      throw new UsageError(
        `profile "${name}" has no sandbox URL; add one with plat profiles add ${name} --base-url ${p.baseUrl} --sandbox-base-url URL`,
      );
    }
    return { url: p.baseUrl, why: `from profile "${name}"` };
  }
  return undefined;
}

/**
 * Whether `url` is one the profile itself names (its URL or its sandbox's), compared in canonical form: where its
 * organization applies (`resolveSettings`) and its stored credential may be sent (cli/credential.ts).
 */
export function profileNamesUrl(p: Profile, url: string): boolean {
  const canonical = (u: string): string | undefined => {
    try {
      return normalizeBaseUrl(u);
    } catch {
      return undefined;
    }
  };
  const wanted = canonical(url);
  return (
    wanted !== undefined && [p.baseUrl, p.sandboxBaseUrl].some((own) => own !== undefined && canonical(own) === wanted)
  );
}

/**
 * The embedded platform's PostgreSQL database, if one is named: `--database-url`, else `PLAT_DATABASE_URL` unless
 * `--db` names a file (flags win). Checked, never echoed.
 */
function pickDatabaseUrl(flags: SettingsFlags, env: NodeJS.ProcessEnv): { url: string; source: string } | undefined {
  if (flags.db !== undefined && flags.databaseUrl !== undefined) {
    throw new UsageError(
      "--db and --database-url both name the embedded platform's database: give one (a SQLite file, or a PostgreSQL URL)",
    );
  }
  if (flags.db && isDatabaseUrl(flags.db)) {
    throw new UsageError('--db takes a SQLite database file; give a PostgreSQL URL with --database-url instead');
  }
  if (flags.databaseUrl !== undefined) {
    return { url: checkDatabaseUrl(flags.databaseUrl, '--database-url'), source: '--database-url' };
  }
  if (env.PLAT_DATABASE_URL && !flags.db) {
    return { url: checkDatabaseUrl(env.PLAT_DATABASE_URL, 'PLAT_DATABASE_URL'), source: 'PLAT_DATABASE_URL' };
  }
  return undefined;
}

/**
 * Decides profile, endpoint and organization with the contract's precedence: flags > environment > profile.
 * With nothing configured the result is the embedded profile `local` on `<dataDir>/local.db`.
 * `--db` or `--database-url` without `--base-url` selects the embedded platform even when `PLAT_BASE_URL` is set
 * (flags win). `PLAT_DATABASE_URL` replaces the embedded platform's file, never a remote endpoint: it applies only
 * where the endpoint is embedded and no `--db` is given. A PostgreSQL database is, like a foreign `--db`, a database
 * of its own: its own credential account, and none of the profile's organization.
 * Throws `UsageError` for an unknown profile, `--db` or `--database-url` with `--base-url` or a remote profile, both
 * of them, a database URL that cannot be used, or `--sandbox` with no sandbox to go to.
 */
export function resolveSettings(input: ResolveInput): Resolved {
  const { flags, env, config, dataDir } = input;
  const [profile, whyProfile] = pickProfile(flags, env, config);
  const stored = config.profiles[profile];
  if (!stored && profile !== DEFAULT_PROFILE) {
    const known = Object.keys(config.profiles);
    throw new UsageError(
      `unknown profile "${profile}" (${whyProfile}); known profiles: ${known.length ? known.join(', ') : 'none'}`,
    );
  }
  const p: Profile = stored ?? {};
  const sandbox = flags.sandbox === true;
  const remote = pickRemote(flags, env, profile, p, sandbox);
  if (remote && flags.db) {
    throw new UsageError(`--db applies to the embedded platform only, but the endpoint is remote (${remote.why})`);
  }
  if (remote && flags.databaseUrl !== undefined) {
    throw new UsageError(
      `--database-url applies to the embedded platform only, but the endpoint is remote (${remote.why})`,
    );
  }
  // Checked only where it applies: a PLAT_DATABASE_URL left in the environment does not stop remote commands.
  const postgres = remote ? undefined : pickDatabaseUrl(flags, env);

  // The embedded platform's file: --db, else the profile's own; the sandbox is a second file beside the live one.
  // A --db is "foreign" when it names another file than the profile's own (relative paths compared from the working
  // directory, a relative data directory or profile `db` included): it has a credential of its own, named by its
  // absolute path, and none of the profile's organization.
  const ownDb = p.db ?? join(dataDir, `${profile}.db`);
  const cwd = input.cwd ?? process.cwd();
  const memory = flags.db === ':memory:';
  const liveDb = flags.db && !memory ? resolve(cwd, flags.db) : (flags.db ?? ownDb);
  const foreign =
    postgres !== undefined || (!remote && flags.db !== undefined && (memory || liveDb !== resolve(cwd, ownDb)));
  // An instance the profile does not name (--base-url, PLAT_BASE_URL) is not the profile's: nothing of it applies there
  // — no organization (the credential's own is used unless --org or PLAT_ORG says), and no stored credential
  // (cli/credential.ts) — so that the CI recipe works on a machine that has used plat before.
  const elsewhere = remote !== undefined && !profileNamesUrl(p, remote.url);
  const orgSlot = foreign || elsewhere ? undefined : sandbox ? ('sandboxOrg' as const) : ('org' as const);
  const account = foreign
    ? `${profile}@${postgres ? databaseKey(postgres.url) : liveDb}${sandbox ? ':sandbox' : ''}`
    : sandbox
      ? `${profile}:sandbox`
      : profile;

  let org: string | undefined;
  let whyOrg: string;
  const recorded = orgSlot && p[orgSlot];
  if (flags.org) [org, whyOrg] = [flags.org, 'from --org'];
  else if (env.PLAT_ORG) [org, whyOrg] = [env.PLAT_ORG, 'from PLAT_ORG'];
  else if (recorded) [org, whyOrg] = [recorded, `from profile "${profile}"${sandbox ? ' (its sandbox)' : ''}`];
  else whyOrg = "none (the credential's own organization)";

  if (remote) {
    const why = { profile: whyProfile, endpoint: remote.why, org: whyOrg };
    const baseUrl = normalizeBaseUrl(remote.url, remote.why);
    return { profile, kind: 'remote', baseUrl, org, sandbox, account, orgSlot, why };
  }

  if (postgres) {
    // An explicit URL is taken as the database wanted, sandbox or not (as --base-url is): no second database is derived.
    const why = { profile: whyProfile, endpoint: `embedded PostgreSQL, from ${postgres.source}`, org: whyOrg };
    return { profile, kind: 'embedded', db: postgres.url, org, sandbox, account, orgSlot, why };
  }
  let whyEndpoint: string;
  if (flags.db) whyEndpoint = foreign ? 'embedded, from --db' : `embedded, from --db (profile "${profile}"'s own)`;
  else if (p.db) whyEndpoint = `embedded, from profile "${profile}"`;
  else whyEndpoint = stored ? `embedded, default database of profile "${profile}"` : 'default (no configuration)';
  const db = sandbox && liveDb !== ':memory:' ? sandboxDbPath(liveDb) : liveDb;
  return {
    profile,
    kind: 'embedded',
    db,
    org,
    sandbox,
    account,
    orgSlot,
    why: { profile: whyProfile, endpoint: whyEndpoint, org: whyOrg },
  };
}
