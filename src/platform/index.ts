import { verifyBearer } from './auth/bearer.js';
import type { BearerVerifier } from './auth/credentials.js';
import { type AuthOptions, resolveAuthSettings } from './auth/settings.js';
import { type Clock, type IdFactory, randomIds, systemClock } from './clock.js';
import type { BaseCtx, FetchBindings, Mode } from './context.js';
import { txtLookup } from './dns.js';
import { incomingOf, responseOf } from './http/fetch.js';
import { type AppDeps, pipelineFor } from './http/pipeline.js';
import { ROUTES } from './http/routes/index.js';
import { registerInternals } from './internals.js';
import { type Limiter, type LimitsOptions, openLimiter } from './limits/index.js';
import { type AdminOperations, adminOperations } from './operations/admin.js';
import { cannedPlatform as canned } from './snapshot-warm-up.js';
import { openDatabase, readMeta } from './store/db.js';
import { createStores, type Stores } from './store/index.js';
import { CursorCodec } from './store/paging.js';
import { type SecretBox, SecretKeyError, type SecretKeySource, secretKeyFilePath } from './store/secret-box.js';
import { type Q, type SqlDb, sqliteSql } from './store/sql.js';

export { generateApiKey } from './auth/api-keys.js';
export { hashPassword } from './auth/passwords.js';
export type { AuthOptions, OAuthClient } from './auth/settings.js';
export type { Clock, IdFactory } from './clock.js';
export type { FetchBindings, Mode } from './context.js';
export { dnsServerAddress } from './dns.js';
export type { LimitsOptions } from './limits/index.js';
export { type MailFrom, parseMailFrom, parseSmtpUrl, type SmtpTarget } from './mail/settings.js';
export type { AccountReport, AdminOperations } from './operations/admin.js';
export { AlreadyMade, type BootstrapOptions, type BootstrapResult } from './operations/bootstrap.js';
export type { ForgottenSecrets } from './operations/secrets.js';
export { warmUpStores } from './snapshot-warm-up.js';
export { removePlatformFiles } from './store/files.js';
export type { Delivery, Mail } from './store/outbox.js';
export { SecretKeyError } from './store/secret-box.js';
export { withSqliteAddon } from './store/sqlite.js';

/**
 * For the startup snapshot only: a platform answering the warm-up's `users list` from a canned page, with no database
 * (snapshot-warm-up.ts).
 */
export function cannedPlatform(
  orgId: string,
  apiKey: string,
  page: Parameters<typeof canned>[2],
  opts: Omit<PlatformOptions, 'db' | 'limits'> = {},
): Platform {
  return canned(orgId, apiKey, page, opts, platformOverStores);
}

/** The origin of `plat serve` with its default host and port (cli/commands/serve.ts; a test keeps them together). */
export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:8080';

/** How to build a platform. */
export interface PlatformOptions {
  /**
   * Where the platform's data lives: a SQLite file path or `:memory:` (the embedded platform), or a PostgreSQL URL
   * (`postgres://…`, `postgresql://…`), which any number of platforms may share (docs/cli.md, "Where a command goes").
   */
  db: string;
  clock?: Clock;
  ids?: IdFactory;
  mode?: Mode;
  /**
   * The public origin links in e-mails point at (and the issuer's): default `http://127.0.0.1:8080`, where
   * `plat serve` listens unless told otherwise — so that a link made in-process opens once the platform is served.
   */
  publicUrl?: string;
  /**
   * The DNS server domain verification asks (`HOST[:PORT]`, an address: see dns.ts `dnsServerAddress`); default the
   * system's resolver.
   */
  dnsServer?: string;
  /** Where unexpected server errors are reported; default stderr. */
  logger?: (line: string) => void;
  /** Verifies `Authorization: Bearer` tokens; default the platform's own access tokens (auth/bearer.ts). */
  bearer?: BearerVerifier;
  /** Sign-in: access-token lifetime (`accessTokenTtl`, seconds, default 3600), session lifetime, OAuth clients. */
  auth?: AuthOptions;
  /** Rate limits (docs/rate-limits.md): on by default, buckets shared through a file beside the database. */
  limits?: LimitsOptions;
  /**
   * Wraps every set of stores the platform makes (its own, and each transaction's): for tests that plant a fault in
   * a store. Default: none.
   */
  wrapStores?: (stores: Stores) => Stores;
  /**
   * The key secrets are sealed with in the database (`PLAT_SECRET_KEY`: 32 bytes, base64 or hex); default a key file
   * beside the database (`<db>.key`, mode 0600, made on first use).
   */
  secretKey?: string;
  /** How often an open event stream looks for new events (ms); default 250. */
  streamPollMs?: number;
}

/**
 * The platform: one `fetch` that answers the whole API (in-process, or behind `plat serve`'s listener), and the few
 * operations its operator runs without a credential (`plat local`). Nothing else of it — no store, no SQL — is
 * reachable from outside platform/ (docs/architecture.md).
 */
export interface Platform {
  fetch(request: Request, bindings?: FetchBindings): Promise<Response>;
  readonly admin: AdminOperations;
  close(): Promise<void>;
}

/** Whether `db` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** Opens the database at `opts.db` (migrating it) and returns the platform over it. */
export async function createPlatform(opts: PlatformOptions): Promise<Platform> {
  if (isPostgresUrl(opts.db)) return createOnPostgres(opts);
  const source: SecretKeySource =
    opts.secretKey !== undefined
      ? { kind: 'env', value: opts.secretKey }
      : opts.db === ':memory:'
        ? { kind: 'memory' }
        : { kind: 'file', path: secretKeyFilePath(opts.db) };
  const { db, secrets } = openDatabase(opts.db, source);
  const sql = sqliteSql(db);
  const stores = createStores(sql.q, { sql, secrets });
  const clock = opts.clock ?? systemClock;
  const limiter = openLimiter(opts.db, opts.limits ?? {}, { clock });
  const cursorSecret = readMeta(db, 'cursor_secret') as string;
  return platformOver({ sql, stores, cursorSecret, limiter, secrets }, opts);
}

/**
 * The platform on PostgreSQL: the secret key comes from `secretKey` (`PLAT_SECRET_KEY`), shared by every server, as
 * no file beside a database can be. Rate-limit buckets live in the database, shared by every server too.
 */
async function createOnPostgres(opts: PlatformOptions): Promise<Platform> {
  if (opts.secretKey === undefined) {
    throw new SecretKeyError(
      'a platform on PostgreSQL needs its secret key in PLAT_SECRET_KEY (32 bytes, base64 or hex), the same for ' +
        'every server: the key its secrets are sealed with',
    );
  }
  const [{ openPostgres }, { pgBucketStore }] = await Promise.all([
    import('./store/postgres.js'),
    import('./store/pg-buckets.js'),
  ]);
  const { sql, secrets } = await openPostgres(opts.db, { kind: 'env', value: opts.secretKey });
  try {
    const stores = createStores(sql.q, { sql, secrets });
    const clock = opts.clock ?? systemClock;
    const limiter = openLimiter({ buckets: pgBucketStore(sql.q) }, opts.limits ?? {}, { clock });
    const meta = await sql.q.selectFrom('meta').select('value').where('key', '=', 'cursor_secret').executeTakeFirst();
    return platformOver({ sql, stores, cursorSecret: meta?.value as string, limiter, secrets }, opts);
  } catch (err) {
    await sql.close();
    throw err;
  }
}

/** What a platform runs over: its database, the stores over it, the secret cursors are signed with, its limiter. */
interface PlatformParts {
  sql: SqlDb;
  stores: Stores;
  cursorSecret: string;
  limiter: Limiter | undefined;
  /** The box the database's secrets are sealed with (none without a database). */
  secrets?: SecretBox;
}

/**
 * The platform over `stores` given whole, with no database (whatever reaches for one throws, naming what it used;
 * closing it closes the rest) and rate limits in memory: for running requests where SQLite cannot be loaded. The stores
 * need answer only what those requests read.
 */
function platformOverStores(stores: Stores, opts: Omit<PlatformOptions, 'db' | 'limits'> = {}): Platform {
  const sql = new Proxy({} as SqlDb, {
    get: (_sql, name) => {
      if (name === 'close') return async () => {};
      throw new Error(`this platform has no database (sql.${String(name)} was used)`);
    },
  });
  const limiter = openLimiter(':memory:', {}, { clock: opts.clock ?? systemClock });
  return platformOver({ sql, stores, cursorSecret: 'no database', limiter }, opts);
}

/** The transaction each transaction's stores run in. */
const transactionOf = new WeakMap<Stores, Q>();

/** The platform over parts already opened: `createPlatform`'s wiring. */
function platformOver(parts: PlatformParts, opts: Omit<PlatformOptions, 'db' | 'limits'>): Platform {
  const { sql, limiter } = parts;
  const wrap = opts.wrapStores ?? ((s: Stores) => s);
  const stores = wrap(parts.stores);
  const cursors = new CursorCodec(parts.cursorSecret);
  const clock = opts.clock ?? systemClock;
  const ids = opts.ids ?? randomIds();
  const mode = opts.mode ?? 'live';
  const publicUrl = (opts.publicUrl ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, '');
  const auth = resolveAuthSettings(opts.auth);
  const txt = txtLookup(opts.dnsServer);
  // Aborted when the platform closes: every open event stream ends.
  const closing = new AbortController();
  const streams = { signal: closing.signal, pollMs: opts.streamPollMs ?? 250 };
  // What every request's context shares, made once.
  const now = () => clock().toISOString();
  const writes = () => sql.writes();
  function tx<C extends BaseCtx, T>(this: C, fn: (ctx: C) => Promise<T>): Promise<T> {
    // Inside a transaction `stores` are its own (see `inTransaction`): nest as a savepoint.
    const held = transactionOf.get(this.stores);
    const bound = (q: Q) => {
      const txStores = wrap(createStores(q, { sql, secrets: parts.secrets as SecretBox }));
      transactionOf.set(txStores, q);
      return fn({ ...this, stores: txStores });
    };
    return held ? sql.savepoint(held, bound) : sql.tx(bound);
  }
  const makeBase = (requestId: string): BaseCtx => ({
    sql,
    stores,
    clock,
    ids,
    mode,
    cursors,
    requestId,
    publicUrl,
    auth,
    txt,
    streams,
    now,
    tx,
    writes,
  });
  const pipeline = pipelineFor(ROUTES);
  // Request ids are random even where `ids` is not (tests), from a page of the CSPRNG of their own.
  const requestIds = randomIds();
  const platform: AppDeps = {
    makeBase,
    requestId: () => requestIds('request'),
    bearer: opts.bearer ?? verifyBearer,
    limiter,
    logger: opts.logger ?? ((line) => process.stderr.write(`${line}\n`)),
  };
  const base = () => makeBase('internal');
  const made: Platform = {
    fetch: async (request, bindings) =>
      responseOf(await pipeline(platform, incomingOf(request, bindings)), request.method),
    admin: adminOperations(base),
    close: async () => {
      closing.abort();
      await limiter?.close();
      await sql.close();
    },
  };
  registerInternals(made, {
    answer: (incoming) => pipeline(platform, incoming),
    base,
    checkSecretKey: () => parts.secrets?.check(),
    endStreams: () => closing.abort(),
    sql,
  });
  return made;
}
