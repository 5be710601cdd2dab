import type { Command } from 'commander';
import type { CredentialStore } from '../auth/credential-store.js';
import type { Fetch, PlatformClient } from '../client/client.js';
import type { Config } from '../config/config.js';
import { configDir, dataDir } from '../config/paths.js';
import type { Resolved } from '../config/resolve.js';
import type { IdFactory } from '../platform/clock.js';
import { type ActiveCredential, credentialAccount, findCredential, storeApplies } from './credential.js';
import { bootstrapEmbedded, bootstrapNotice, needsBootstrap } from './embedded.js';
import { NotAuthenticatedError, UsageError } from './errors.js';
import { createIo, type InStream, type Io, type OutStream } from './output/io.js';
import { type OutputMode, render } from './output/render.js';
import type { Output } from './output/result.js';
import type { GlobalOptions } from './program.js';
import { confirm, readAll } from './prompt.js';
import { verboseLine } from './verbose.js';

/** A way to reach a platform: the client's `fetch` and the base URL it is addressed by. */
export interface Transport {
  fetch: Fetch;
  baseUrl: string;
  close(): void | Promise<void>;
}

/** Everything `run` gets from outside; the optional parts let tests pin time, ids and the transport. */
export interface CliDeps {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  env: Record<string, string | undefined>;
  cwd: string;
  clock?: () => Date;
  /** Replaces the transport the settings would pick (tests: a platform with a fixed clock and ids). */
  transport?: (r: Resolved) => Promise<Transport>;
  /** Options for the platforms the CLI opens itself (bootstrap, `local mail`, `serve`). */
  platform?: { clock?: () => Date; ids?: IdFactory; publicUrl?: string; logger?: (line: string) => void };
  /** Credential store overrides (tests force the file store). */
  credentialStore?: { forceFile?: boolean; timeoutMs?: number };
  /** The client's wait between retries (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /** Subscribes to the shutdown signal of `serve`; default SIGINT/SIGTERM. Returns an unsubscribe function. */
  onShutdown?: (handler: () => void) => () => void;
  version?: string;
}

/** The lazy factory every command gets: nothing is opened, read or resolved until a command asks for it. */
export interface Context {
  readonly deps: CliDeps;
  readonly env: Record<string, string | undefined>;
  readonly io: Io;
  readonly clock: () => Date;
  /** The parsed global options. */
  globals(): GlobalOptions;
  /** The output mode: `--json` wins over `-o`. */
  outputMode(): OutputMode;
  render(output: Output): void;
  /** A line of chatter on stderr, unless `--quiet`. */
  notice(message: string): void;
  /** A warning on stderr, even with `--quiet`. */
  warn(message: string): void;
  confirm(action: string): Promise<void>;
  configDir(): string;
  dataDir(): string;
  config(): Promise<Config>;
  saveConfig(config: Config): Promise<void>;
  settings(): Promise<Resolved>;
  credentials(): Promise<CredentialStore>;
  /** The credential commands act with (bootstrapping the embedded platform first if needed), or undefined. */
  credential(): Promise<ActiveCredential | undefined>;
  client(): Promise<PlatformClient>;
  /** The organization for commands that need one: --org / PLAT_ORG / the profile's, else the credential's own. */
  orgId(): Promise<string>;
  /** The whole program with every noun registered (completion scripts walk it). */
  program(): Promise<Command>;
  /** The text piped to stdin, read once (for `--*-stdin` secrets). */
  stdinText(): Promise<string>;
  close(): Promise<void>;
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
): Context {
  const closers: (() => void | Promise<void>)[] = [];
  let io: Io | undefined;
  let config: Config | undefined;
  let applies = true;

  const env = deps.env as NodeJS.ProcessEnv;
  const dirs = { config: configDir(env), data: dataDir(env) };

  const ctx: Context = {
    deps,
    env: deps.env,
    clock: deps.clock ?? (() => new Date()),
    get io() {
      io ??= createIo(deps, deps.env, globals().color !== false);
      return io;
    },
    globals,
    outputMode: () => (globals().json ? 'json' : (globals().output ?? 'table')),
    render: (output) => render(ctx.io, output, { mode: ctx.outputMode(), quiet: globals().quiet === true }),
    notice: (message) => {
      if (!globals().quiet) ctx.io.err(message);
    },
    warn: (message) => ctx.io.err(`plat: warning: ${message}`),
    confirm: (action) => confirm(ctx.io, globals().yes === true, action),
    configDir: () => dirs.config,
    dataDir: () => dirs.data,
    config: async () => {
      config ??= await (await import('../config/config.js')).loadConfig(dirs.config);
      return config;
    },
    saveConfig: async (next) => {
      await (await import('../config/config.js')).saveConfig(dirs.config, next);
      config = next;
    },
    settings: once(async () => {
      const { resolveSettings } = await import('../config/resolve.js');
      const g = globals();
      const flags = { profile: g.profile, baseUrl: g.baseUrl, org: g.org, db: g.db, sandbox: g.sandbox };
      return resolveSettings({ flags, env: deps.env, config: await ctx.config(), dataDir: dirs.data });
    }),
    credentials: once(async () => {
      const { openCredentialStore } = await import('../auth/credential-store.js');
      const warn = (m: string) => ctx.warn(m);
      return openCredentialStore({ configDir: dirs.config, warn, env: deps.env, ...deps.credentialStore });
    }),
    program,
    stdinText: once(() => readAll(deps.stdin)),
    credential: once(async () => {
      const r = await ctx.settings();
      if (needsBootstrap(r)) {
        const made = await bootstrapEmbedded(ctx, r);
        ctx.notice(bootstrapNotice(made, 'admin@localhost', (await ctx.credentials()).location));
      }
      const stdinKey = globals().apiKeyStdin ? ctx.stdinText : undefined;
      const { normalizeBaseUrl } = await import('../config/resolve.js');
      applies = storeApplies(r, (await ctx.config()).profiles[r.profile], (u) => normalizeBaseUrl(u));
      const account = credentialAccount(r);
      return findCredential({ stdinKey, env: deps.env, account, storeApplies: applies, store: ctx.credentials });
    }),
    client: once(async () => {
      const r = await ctx.settings();
      const credential = await ctx.credential();
      if (!credential) {
        throw new NotAuthenticatedError(
          applies
            ? `no credentials for profile "${r.profile}": run plat login, or set PLAT_API_KEY (or PLAT_TOKEN)`
            : `no credentials for ${r.baseUrl} (${r.why.endpoint}): set PLAT_API_KEY or PLAT_TOKEN ` +
                `(a profile's stored credential is only sent to the profile's own URL)`,
        );
      }
      const transport = await openTransport(deps, r);
      closers.push(() => transport.close());
      const { PlatformClient } = await import('../client/client.js');
      const g = globals();
      return new PlatformClient({
        fetch: transport.fetch,
        baseUrl: transport.baseUrl,
        auth: async () => credential.headers,
        orgId: r.org,
        requestId: g.requestId,
        maxRetries: g.maxRetries,
        sleep: deps.sleep,
        userAgent: `plat-cli/${deps.version ?? 'dev'}`,
        onRequest: g.verbose ? (info) => ctx.io.err(verboseLine(info)) : undefined,
      });
    }),
    orgId: once(async () => {
      const r = await ctx.settings();
      if (r.org) return r.org;
      const client = await ctx.client();
      try {
        return (await client.auth.whoami()).organization.id;
      } catch (err) {
        if ((err as { status?: number }).status !== 404) throw err;
        throw new UsageError('no organization selected: pass --org ORG_ID, set PLAT_ORG, or run plat orgs use ORG_ID');
      }
    }),
    close: async () => {
      for (const close of closers.splice(0).reverse()) await close();
    },
  };
  return ctx;
}

/** The transport the settings call for: the embedded platform in-process, or a remote instance over undici. */
async function openTransport(deps: CliDeps, r: Resolved): Promise<Transport> {
  if (deps.transport) return deps.transport(r);
  const transports = await import('../client/transports.js');
  if (r.kind === 'embedded')
    return transports.embeddedTransport({ db: r.db as string, mode: r.sandbox ? 'sandbox' : 'live' });
  const remote = await transports.remoteTransport();
  return { fetch: remote.fetch, baseUrl: r.baseUrl as string, close: () => remote.close() };
}
