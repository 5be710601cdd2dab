import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CredentialStore } from '../auth/credential-store.js';
import type { Fetch } from '../client/client.js';
import type { ConfigFile } from '../config/config.js';
import { isDatabaseUrl, shownDb } from '../config/database-url.js';
import { makeDirectory } from '../config/make-directory.js';
import type { Resolved } from '../config/resolve.js';
import type { Platform, PlatformOptions } from '../platform/index.js';
import { CliError, UsageError } from './errors.js';
import { notice, type Terminal } from './output/terminal.js';

/** What `plat local` reads of the embedded platform's mailbox and sealed secrets. */
export type { Delivery, ForgottenSecrets, Mail } from '../platform/index.js';

/**
 * The embedded platform's module, loaded on demand so that remote commands never load SQLite. The CLI reaches the
 * platform here and in `plat serve` only (test/architecture/arrows.test.ts).
 */
export const platformModule = () => import('../platform/index.js');

/** Options for the platforms the CLI opens itself: bootstrap, `local`, `serve` (tests pin the clock and ids). */
export type OwnPlatformOptions = Pick<PlatformOptions, 'clock' | 'ids' | 'publicUrl' | 'logger'>;

/** What of the command's context opening and creating the embedded platform use (a part of cli/context.ts's). */
export interface EmbeddedContext extends Terminal {
  /** The run's dependencies (cli/deps.ts) these read. */
  readonly deps: {
    readonly env: Record<string, string | undefined>;
    readonly cwd?: string;
    readonly platform?: OwnPlatformOptions;
  };
  config(): Promise<ConfigFile>;
  configDir(): string;
  settings(): Promise<Resolved>;
  credentials(): Promise<CredentialStore>;
}

/** What a bootstrap made: the ids, and the owner's multi-organization key (shown only by `local init --json`). */
export interface LocalPlatform {
  organizationId: string;
  userId: string;
  apiKey: string;
  /** The owner's generated sign-in password (null when one was given); shown once, by `local init` only. */
  password: string | null;
  /** The database as it may be shown: the file, or the PostgreSQL URL without its password. */
  db: string;
}

/** The base URL the embedded platform is addressed by; no socket ever listens on it. */
export const EMBEDDED_BASE_URL = 'http://embedded.plat/v2';

/** `PLAT_SECRET_KEY`, the key the embedded platform's secrets are sealed with, when set. */
export function secretKeyOf(env: Record<string, string | undefined>): string | undefined {
  return env.PLAT_SECRET_KEY || undefined;
}

/**
 * `secretKeyOf`, for a platform over `db`: one on PostgreSQL cannot do without it (no key file can sit beside a
 * database every server shares), and says so before anything is opened — a usage error (2) naming PLAT_SECRET_KEY.
 */
export function secretKeyFor(env: Record<string, string | undefined>, db: string): string | undefined {
  const key = secretKeyOf(env);
  if (key === undefined && isDatabaseUrl(db)) {
    throw new UsageError(
      'a platform on PostgreSQL needs PLAT_SECRET_KEY: the key its secrets are sealed with, 32 bytes in base64 or ' +
        'hex (make one with: openssl rand -base64 32), the same for every plat that opens the database; keep it ' +
        'as safe as the database',
    );
  }
  return key;
}

/**
 * Whether the embedded platform of these settings still has to be created on first use: a file that does not exist
 * yet. A PostgreSQL database never is (servers starting together on an empty one would each make an organization):
 * `plat local init --database-url` makes its platform, explicitly.
 */
export function needsBootstrap(r: Resolved): boolean {
  return (
    r.kind === 'embedded' && r.db !== undefined && r.db !== ':memory:' && !isDatabaseUrl(r.db) && !existsSync(r.db)
  );
}

/**
 * Whether the platform over `platform`'s database holds an organization: what tells an empty PostgreSQL database
 * (migrated, but not yet made a platform by `local init`) from one in use.
 */
export async function hasOrganization(platform: Platform): Promise<boolean> {
  return platform.admin.hasOrganization();
}

/**
 * Whether the embedded platform of these settings exists already (`local init` reports it rather than making one):
 * its file exists, or its PostgreSQL database holds an organization.
 */
export async function platformExists(ctx: Pick<EmbeddedContext, 'deps'>, r: Resolved & { db: string }) {
  if (!isDatabaseUrl(r.db)) return !needsBootstrap(r);
  const platform = await openPlatform(ctx, r.db, r.sandbox);
  try {
    return await hasOrganization(platform);
  } finally {
    await platform.close();
  }
}

/**
 * A PostgreSQL database that cannot be reached (refused, unknown host, timed out) as a network failure (9), told
 * with the database's masked URL; any other error as it is. pg's messages name addresses, never the password.
 */
export function databaseFailure(err: unknown, db: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (!isDatabaseUrl(db) || typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return err;
  const why = (err as Error).message || code;
  return new CliError('network', `cannot reach the PostgreSQL database ${shownDb(db)}: ${why}`);
}

/**
 * Opens the platform in a database file, for the commands that reach it directly (bootstrap, `local mail`).
 * Imported on demand so that remote commands never load SQLite.
 */
export async function openPlatform(
  ctx: Pick<EmbeddedContext, 'deps'>,
  db: string,
  sandbox: boolean,
): Promise<Platform> {
  const { env, platform } = ctx.deps;
  return createAt(db, {
    mode: sandbox ? 'sandbox' : 'live',
    secretKey: secretKeyFor(env, db),
    dnsServer: await dnsServer(env.PLAT_DNS_SERVER, 'PLAT_DNS_SERVER'),
    ...platform,
  });
}

/**
 * The DNS server domain verification asks (`--dns-server`, PLAT_DNS_SERVER: docs/domains.md), as `node:dns` takes
 * it; undefined for the system's resolver. A usage error naming `source` when it is not an address.
 */
export async function dnsServer(value: string | undefined, source: string): Promise<string | undefined> {
  if (!value) return undefined;
  const address = (await platformModule()).dnsServerAddress(value);
  if (!address) {
    throw new UsageError(`${source} must be an IP address with an optional port: HOST[:PORT], or [IPv6]:PORT`);
  }
  return address;
}

/**
 * Creates the platform over the database file `db` (its folder made, private, when missing) or the PostgreSQL
 * database `db` names: the one place the CLI loads the platform and SQLite, on demand, so that remote commands never
 * do. Without rate limits: a command's own requests to the platform in its process are not a client to hold back
 * (docs/rate-limits.md); `plat serve` still limits its clients.
 */
async function createAt(db: string, opts: Omit<PlatformOptions, 'db'>): Promise<Platform> {
  if (isDatabaseUrl(db)) secretKeyFor({ PLAT_SECRET_KEY: opts.secretKey }, db);
  else if (db !== ':memory:') makeDirectory(dirname(db), 'data directory');
  const { createPlatform } = await platformModule();
  return createPlatform({ db, ...opts, limits: { enabled: false } }).catch((err: unknown) => {
    throw databaseFailure(err, db);
  });
}

/**
 * Creates the embedded platform: an organization on `enterprise`, its owner, and the owner's multi-organization API
 * key, which goes to the credential store under the settings' account (the profile's, its sandbox's, or that of the
 * `--db` file or the PostgreSQL database). The new organization is recorded as the profile's (or its sandbox's); a
 * `--db` other than the profile's own, or a PostgreSQL database, changes nothing in the profile, and its key acts in
 * its own organization by default. The result names the database as it may be shown (`shownDb`).
 */
export async function bootstrapEmbedded(
  ctx: EmbeddedContext,
  r: Resolved,
  opts: { orgName?: string; email?: string; password?: string; onlyFirst?: boolean } = {},
): Promise<LocalPlatform> {
  const db = r.db as string;
  // Where its key and organization go, made first: a platform whose key could not be stored would be out of reach.
  makeDirectory(ctx.configDir(), 'configuration directory');
  const platform = await openPlatform(ctx, db, r.sandbox);
  let made: Omit<LocalPlatform, 'db'>;
  try {
    const email = opts.email ?? 'admin@localhost';
    made = await platform.admin.init({
      orgName: opts.orgName ?? 'Local',
      email,
      password: opts.password,
      onlyFirst: opts.onlyFirst,
    });
  } finally {
    await platform.close();
  }
  const store = await ctx.credentials();
  await store.set(r.account, { apiKey: made.apiKey });
  if (r.orgSlot) {
    const file = await ctx.config();
    const config = file.current;
    const profile = { ...config.profiles[r.profile], [r.orgSlot]: made.organizationId };
    await file.save({ ...config, profiles: { ...config.profiles, [r.profile]: profile } });
  }
  return { ...made, db: shownDb(db) };
}

/**
 * The embedded path's first step, taken before a command looks for its credential or opens its transport (the
 * context's `endpoint`, and `serve`): the settings' embedded platform is created on first use — an organization, its
 * owner admin@localhost, the owner's key in the credential store — with one notice on stderr. Returns the settings
 * as they are afterwards (the profile may now record the new organization).
 */
export async function readyEndpoint(ctx: EmbeddedContext): Promise<Resolved> {
  const r = await ctx.settings();
  if (!needsBootstrap(r)) return r;
  const made = await bootstrapEmbedded(ctx, r);
  const store = (await ctx.credentials()).location;
  notice(ctx, bootstrapNotice(made, 'admin@localhost', store, { command: sameDatabaseCommand(ctx) }));
  return ctx.settings();
}

/**
 * `plat` with the global options that named this command's database (`--profile`, `--db` made absolute,
 * `--sandbox`), for a notice that tells a command to run on it: without them, it would act on the default one.
 */
function sameDatabaseCommand(ctx: EmbeddedContext): string {
  const g = ctx.globals();
  const words = ['plat'];
  if (g.profile !== undefined) words.push('--profile', shellWord(g.profile));
  if (g.db !== undefined) words.push('--db', shellWord(g.db === ':memory:' ? g.db : resolve(ctx.deps.cwd ?? '', g.db)));
  if (g.sandbox) words.push('--sandbox');
  return words.join(' ');
}

/** A word as a POSIX shell reads it back: as it is when it holds nothing special, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The one notice a bootstrap prints on stderr. Names where the key went, never the key, and never a password: after
 * an implicit bootstrap (any command but `local init`) a generated owner password is only mentioned, with how to
 * choose one (`command`: `plat` with the options that name the database); `local init` shows its generated password
 * in its own output instead (`passwordShown`).
 */
export function bootstrapNotice(
  made: LocalPlatform,
  email: string,
  storeLocation: string,
  opts: { passwordShown?: boolean; command?: string } = {},
): string {
  const password = !made.password
    ? ''
    : opts.passwordShown
      ? `\nStore the owner's generated sign-in password now: it is not shown again.`
      : `\nThe owner has a generated sign-in password (not shown); choose one with: ${opts.command ?? 'plat'} local ` +
        'init --password-stdin';
  return (
    `Created the embedded platform at ${made.db}: organization ${made.organizationId}, owner ${email}.\n` +
    `Its API key is stored in ${storeLocation}.${password}`
  );
}

/**
 * The embedded platform in-process, as the client's transport: `fetch` calls the platform's handler directly. The
 * platform (and SQLite) is imported here, dynamically, so that remote commands never load it; the client never
 * imports the platform, it is handed this. `lightFetch` is called first (the binary's entry installs light in-process
 * `Request`/`Response` classes with it: see CliDeps).
 */
export async function embeddedTransport(opts: {
  db: string;
  mode?: 'live' | 'sandbox';
  lightFetch?: () => Promise<void>;
  /**
   * `PLAT_SECRET_KEY`: the key the database's secrets are sealed with (default: the key file beside it; required on
   * PostgreSQL, a usage error without it).
   */
  secretKey?: string;
  /** Where the platform's log lines go (default: stderr as they are). */
  logger?: (line: string) => void;
  /** PLAT_DNS_SERVER, unchecked: the DNS server domain verification asks. */
  dnsServer?: string;
}): Promise<{ fetch: Fetch; baseUrl: string; close(): Promise<void> }> {
  await opts.lightFetch?.();
  const platform = await createAt(opts.db, {
    mode: opts.mode,
    secretKey: opts.secretKey,
    dnsServer: await dnsServer(opts.dnsServer, 'PLAT_DNS_SERVER'),
    ...(opts.logger && { logger: opts.logger }),
  });
  return {
    fetch: (request) => platform.fetch(request),
    baseUrl: EMBEDDED_BASE_URL,
    close: () => platform.close(),
  };
}
