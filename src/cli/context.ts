import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CredentialStore } from '../auth/credential-store.js';
import type { TokenSession } from '../auth/token-session.js';
import type { PlatformClient } from '../client/client.js';
import type { Config, ConfigFile } from '../config/config.js';
import { isDatabaseUrl, shownDb } from '../config/database-url.js';
import { configDir, dataDir } from '../config/paths.js';
import type { Resolved } from '../config/resolve.js';
import { newClient, oauthTransport, openTransport } from './connection.js';
import { type ActiveCredential, findCredential, isSignedIn, refusingUnsendable, storeApplies } from './credential.js';
import type { CliDeps, Transport } from './deps.js';
import { needsBootstrap, readyEndpoint } from './embedded.js';
import { NotAuthenticatedError, UsageError } from './errors.js';
import type { GlobalOptions } from './globals.js';
import { organizationBySlug as bySlug, isOrganizationId } from './organization-slug.js';
import { createIo, type Io } from './output/io.js';
import { warn } from './output/terminal.js';
import { readAll } from './prompt.js';

export type { CliDeps, Transport } from './deps.js';

/**
 * The lazy factory every command gets (the GitHub CLI's `cmdutil.Factory`): values, and memoized functions that make
 * them on first use — nothing is opened, read or resolved until a command asks for it. It holds no behaviour: what a
 * command says goes through output/terminal.ts (output, notices, warnings), confirmations through prompt.ts, and the
 * run that made the context closes what it opened (createContext's `close`).
 */
export interface Context {
  /** What `run` was given: streams, environment, working directory, and the test seams. */
  readonly deps: CliDeps;
  /** The streams and what they allow (made on first use, once `--no-color` is parsed). */
  readonly io: Io;
  readonly clock: () => Date;
  /** The parsed global options. */
  globals(): GlobalOptions;
  configDir(): string;
  dataDir(): string;
  /** `config.json`, read once; commands that change it save through it. */
  config(): Promise<ConfigFile>;
  /** The resolved settings (profile, endpoint, organization, account), for the configuration as last saved. */
  settings(): Promise<Resolved>;
  /**
   * The settings' endpoint, ready for commands: the embedded platform is created on first use (bootstrap: an
   * organization, its owner and the owner's key, with one notice). Taken before the credential and the transport.
   */
  endpoint(): Promise<Resolved>;
  /** The credential store (keychain, else the file). */
  credentials(): Promise<CredentialStore>;
  /**
   * The credential commands act with, or undefined: found, never made, once per run. The embedded platform's is made
   * by `endpoint`, so a command that may run first on a fresh machine takes `endpoint` before asking for it.
   */
  credential(): Promise<ActiveCredential | undefined>;
  /** The way to the ready endpoint (opened once, closed at the end of the run). */
  transport(): Promise<Transport>;
  /**
   * The refreshing token of a profile signed in with `plat login` (undefined for API keys and `PLAT_TOKEN`): what
   * the client sends, refreshed ahead of expiry and once after a `401`.
   */
  tokenSession(): Promise<TokenSession | undefined>;
  /** The API client; `orgId` sends another `X-Org-Id` than the settings' (orgs get/update/use of another one). */
  client(orgId?: string): Promise<PlatformClient>;
  /** The organization for commands that need one: --org / PLAT_ORG / the profile's, else the credential's own. */
  orgId(): Promise<string>;
  /** The whole program with every noun registered (completion scripts walk it). */
  program(): Promise<Command>;
  /** The text piped to stdin, read once (for `--*-stdin` secrets). */
  stdinText(): Promise<string>;
}

/** A context, and how the run that made it closes what its commands opened (the transport). */
export interface ContextOfRun {
  ctx: Context;
  close(): Promise<void>;
}

/**
 * A `--db` file must be in a directory that exists: plat makes its own data directory, never another one a typo
 * named (`--db ~/projets/dev.db`).
 */
function checkDbDirectory(given: string, db: string, dataDir: string): void {
  if (db === ':memory:') return;
  const dir = dirname(db);
  if (existsSync(dir) || resolve(dir) === resolve(dataDir)) return;
  throw new UsageError(
    `--db ${given}: the directory ${dir} does not exist; create it first (mkdir -p ${dir}) or choose a file in an existing directory`,
  );
}

/** Caches an async factory's result: the first call does the work. */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => {
    p ??= fn();
    return p;
  };
}

/** Creates the context. `globals` is read after commander has parsed the command line. */
export function createContext(
  deps: CliDeps,
  globals: () => GlobalOptions,
  program: () => Promise<Command> = async () => {
    throw new Error('no program');
  },
): ContextOfRun {
  const closers: (() => void | Promise<void>)[] = [];
  let io: Io | undefined;
  let settings: { of: Config; resolved: Promise<Resolved> } | undefined;
  const clients = new Map<string, Promise<PlatformClient>>();
  /** Organization slugs read as ids, once each per run. */
  const slugs = new Map<string, Promise<string>>();
  const slugId = (slug: string, client: () => Promise<PlatformClient>) => {
    let id = slugs.get(slug);
    if (!id) {
      id = client().then((c) => bySlug(c, slug));
      slugs.set(slug, id);
    }
    return id;
  };
  let endpointTaken = false;

  /** The credential, and whether the profile's stored one may go to the endpoint (for the refusal's wording). */
  const found = once(async () => {
    const r = await ctx.settings();
    // Found once per run: asked before the embedded platform is made, it would stay "none" for the whole run.
    if (!endpointTaken && needsBootstrap(r))
      throw new Error('internal: ctx.endpoint() must be taken before ctx.credential()');
    const stdinKey = globals().apiKeyStdin ? ctx.stdinText : undefined;
    const { profileNamesUrl } = await import('../config/resolve.js');
    const applies = storeApplies(r, (await ctx.config()).current.profiles[r.profile], profileNamesUrl);
    const account = r.account;
    const credential = await findCredential({
      stdinKey,
      env: deps.env,
      account,
      storeApplies: applies,
      store: ctx.credentials,
    });
    return { credential, applies };
  });

  /** The endpoint made ready, its credential and its transport, once per run; clients for several orgs share them. */
  const connect = once(async () => {
    const r = await ctx.endpoint();
    const { credential, applies } = await found();
    if (!credential) {
      // A file that is no plat database (or one plat cannot read or write) is told as such, not as a missing key.
      if (r.kind === 'embedded') await ctx.transport();
      throw new NotAuthenticatedError(
        r.kind === 'embedded'
          ? // An embedded platform has no sign-in: a file made elsewhere (copied, or by another plat) has no key here.
            `no API key is stored for the embedded platform at ${shownDb(r.db as string)} ` +
              `(credential account "${r.account}"): set PLAT_API_KEY to an API key of that platform` +
              (isDatabaseUrl(r.db as string)
                ? ', or create the platform there with plat local init --database-url'
                : '')
          : applies
            ? `no credentials for profile "${r.profile}": run plat login, or set PLAT_API_KEY (or PLAT_TOKEN)`
            : `no credentials for ${r.baseUrl} (${r.why.endpoint}): set PLAT_API_KEY or PLAT_TOKEN ` +
              `(a profile's stored credential is only sent to the profile's own URL)`,
      );
    }
    const transport = await ctx.transport();
    const session = await ctx.tokenSession();
    return { r, credential, transport, session };
  });

  const env = deps.env as NodeJS.ProcessEnv;
  const dirs = { config: configDir(env), data: dataDir(env) };

  const ctx: Context = {
    deps,
    clock: deps.clock ?? (() => new Date()),
    get io() {
      io ??= createIo(deps, deps.env, globals().color !== false);
      return io;
    },
    globals,
    configDir: () => dirs.config,
    dataDir: () => dirs.data,
    config: once(async () => (await import('../config/config.js')).openConfigFile(dirs.config)),
    settings: async () => {
      // Resolved again once the configuration was saved (a bootstrap or `orgs use` changes what they resolve to).
      const config = (await ctx.config()).current;
      if (settings?.of !== config) settings = { of: config, resolved: resolveFor(config) };
      return settings.resolved;
    },
    endpoint: once(() => {
      endpointTaken = true;
      return readyEndpoint(ctx);
    }),
    credentials: once(async () => {
      const { openCredentialStore } = await import('../auth/credential-store.js');
      return refusingUnsendable(
        await openCredentialStore({
          configDir: dirs.config,
          warn: (m) => warn(ctx, m),
          env: deps.env,
          ...deps.credentialStore,
        }),
      );
    }),
    program,
    stdinText: once(() => readAll(ctx.io.stdin)),
    transport: once(async () => {
      const transport = await openTransport(deps, await ctx.endpoint());
      closers.push(() => transport.close());
      return transport;
    }),
    tokenSession: once(async () => {
      const credential = await ctx.credential();
      if (!isSignedIn(credential)) return undefined;
      const [{ TokenSession }, { refreshLockPath }] = await Promise.all([
        import('../auth/token-session.js'),
        import('../auth/refresh-lock.js'),
      ]);
      const { account, credential: initial } = credential.stored;
      return new TokenSession({
        store: await ctx.credentials(),
        account,
        initial,
        lockFile: refreshLockPath(dirs.config, account),
        transport: oauthTransport(await ctx.transport(), { globals: globals(), deps, log: (line) => ctx.io.err(line) }),
        clock: ctx.clock,
      });
    }),
    credential: async () => (await found()).credential,
    client: (orgId) => {
      const key = orgId ?? '';
      let client = clients.get(key);
      if (!client) {
        client = connect().then(async ({ r, ...c }) => {
          const settings = { globals: globals(), deps, log: (line: string) => ctx.io.err(line) };
          // --org and PLAT_ORG may give a slug: read as an id (once) through a client that names no organization.
          const org = orgId ?? r.org;
          const acting = org && !isOrganizationId(org) ? await slugId(org, () => newClient(c, settings)) : org;
          return newClient(c, { ...settings, orgId: acting });
        });
        clients.set(key, client);
      }
      return client;
    },
    orgId: once(async () => {
      const client = await ctx.client(); // first: a bootstrap on the way records the profile's organization
      const r = await ctx.settings();
      if (r.org) return isOrganizationId(r.org) ? r.org : slugId(r.org, async () => client);
      try {
        return (await client.auth.whoami()).organization.id;
      } catch (err) {
        if ((err as { status?: number }).status !== 404) throw err;
        throw new UsageError('no organization selected: pass --org ORG_ID, set PLAT_ORG, or run plat orgs use ORG_ID');
      }
    }),
  };

  /** The settings for one configuration: flags > environment > profile. */
  async function resolveFor(config: Config): Promise<Resolved> {
    const { resolveSettings } = await import('../config/resolve.js');
    const g = globals();
    const flags = {
      profile: g.profile,
      baseUrl: g.baseUrl,
      org: g.org,
      db: g.db,
      databaseUrl: g.databaseUrl,
      sandbox: g.sandbox,
    };
    const r = resolveSettings({ flags, env: deps.env, config, dataDir: dirs.data, cwd: deps.cwd });
    if (g.db !== undefined && r.db) checkDbDirectory(g.db, r.db, dirs.data);
    return r;
  }

  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  return { ctx, close };
}
