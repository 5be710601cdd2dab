import type { Command } from 'commander';
import { isDatabaseUrl, shownDb } from '../../config/database-url.js';
import type { Context } from '../context.js';
import { databaseFailure, dnsServer, hasOrganization, secretKeyFor } from '../embedded.js';
import { UsageError } from '../errors.js';
import { listenFailure } from '../listen-failure.js';
import { done, type Output } from '../output/result.js';
import { notice } from '../output/terminal.js';
import { intBetween, portNumber, positiveInt } from '../parse.js';
import { asLeaf } from '../verb.js';

/** A setting and where it came from (error messages name the flag or the variable, never the value). */
interface Sourced {
  value: string;
  source: string;
}

interface ServeOptions {
  host: string;
  port: number;
  publicUrl?: string;
  /** false with --no-rate-limits (or PLAT_RATE_LIMITS=off): for local development only. */
  rateLimits: boolean;
  /** The listener's connection cap; the platform's default (256) when not given. */
  maxConnections?: number;
  /** The cap of connections from one client address; the platform's default (32) when not given. */
  maxConnectionsPerAddress?: number;
  /** The DNS server domain verification asks (--dns-server or PLAT_DNS_SERVER); default the system's resolver. */
  dnsServer?: Sourced;
  /** The proxies whose X-Forwarded-For is believed (--trust-proxy or PLAT_TRUST_PROXY), comma-separated. */
  trustProxy?: Sourced;
  /** Where the outbox is delivered (--smtp-url or PLAT_SMTP_URL), and from whom. */
  smtpUrl?: Sourced;
  mailFrom?: Sourced;
  smtpRate?: number;
  smtpConnections?: number;
  /** --allow-private-webhooks: webhooks may go to private and link-local addresses (docs/webhooks.md). */
  allowPrivateWebhooks: boolean;
  /** PLAT_TEST_WEBHOOK_TIMING, internal: the webhook sender's timers, shortened by the tests of a spawned server. */
  webhookTiming?: string;
}

/**
 * The SMTP delivery `o` asks for, checked before anything starts: a bad URL or sender is a usage error whose message
 * never quotes the URL (it may hold a password).
 */
async function mailOptions(o: ServeOptions) {
  if (!o.smtpUrl) {
    const stray =
      o.smtpRate !== undefined ? '--smtp-rate' : o.smtpConnections !== undefined ? '--smtp-connections' : '';
    if (stray || o.mailFrom?.source === '--mail-from') {
      throw new UsageError(
        `${stray || '--mail-from'} needs --smtp-url (or PLAT_SMTP_URL): without it, mail is not sent`,
      );
    }
    return undefined;
  }
  const { parseSmtpUrl, parseMailFrom } = await import('../../platform/index.js');
  const checked = <T>(source: string, parse: () => T): T => {
    try {
      return parse();
    } catch (err) {
      throw new UsageError(`${source} cannot be used: ${(err as Error).message}`);
    }
  };
  const { smtpUrl, mailFrom } = o;
  return {
    smtp: checked(smtpUrl.source, () => parseSmtpUrl(smtpUrl.value)),
    ...(mailFrom && { from: checked(mailFrom.source, () => parseMailFrom(mailFrom.value)) }),
    pace: {
      ...(o.smtpRate !== undefined && { perSecond: o.smtpRate }),
      ...(o.smtpConnections !== undefined && { connections: o.smtpConnections }),
    },
  };
}

/** The trusted proxies `--trust-proxy` (or PLAT_TRUST_PROXY) lists, checked before anything starts. */
async function proxies(setting: Sourced | undefined): Promise<string[] | undefined> {
  if (!setting) return undefined;
  const entries = setting.value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) throw new UsageError(`${setting.source} lists no address`);
  const { trustedProxies } = await import('../../platform/server.js');
  try {
    trustedProxies(entries);
  } catch (err) {
    throw new UsageError(`${setting.source}: ${(err as Error).message}`);
  }
  return entries;
}

/** The webhook sender's timers a test may shorten, and what each must be. */
const TIMING_KEYS = ['pollMs', 'leaseMs', 'timeoutMs', 'stopGraceMs'] as const;
type Timing = Partial<Record<(typeof TIMING_KEYS)[number], number>>;

/**
 * How this server delivers webhooks: to private addresses too with --allow-private-webhooks; its timers as
 * PLAT_TEST_WEBHOOK_TIMING gives them — an internal variable, undocumented on purpose, for the tests that spawn
 * `plat serve` (JSON: `{"pollMs":50,"leaseMs":2000,"timeoutMs":1000,"stopGraceMs":500,"schedule":[100,200]}`).
 */
function webhookOptions(o: ServeOptions): { allowPrivate?: boolean; schedule?: number[] } & Timing {
  const timing: { schedule?: number[] } & Timing = {};
  if (o.webhookTiming) {
    const bad = () => new UsageError('PLAT_TEST_WEBHOOK_TIMING (internal, for tests) is not valid timing JSON');
    let given: unknown;
    try {
      given = JSON.parse(o.webhookTiming);
    } catch {
      throw bad();
    }
    if (typeof given !== 'object' || given === null || Array.isArray(given)) throw bad();
    const ms = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 1;
    for (const [key, value] of Object.entries(given)) {
      if (key === 'schedule' && Array.isArray(value) && value.every(ms)) timing.schedule = value as number[];
      else if ((TIMING_KEYS as readonly string[]).includes(key) && ms(value)) {
        timing[key as keyof Timing] = value as number;
      } else throw bad();
    }
  }
  return { ...timing, ...(o.allowPrivateWebhooks && { allowPrivate: true }) };
}

/**
 * Serves the embedded platform until SIGINT/SIGTERM: one access-log line per request on stderr, then a graceful
 * close that lets in-flight requests finish. The bound URL goes to stderr first, so `--port 0` is usable by scripts.
 */
async function serve(o: ServeOptions, ctx: Context): Promise<Output> {
  // First, before the platform's code is loaded: Node.js maps only what it loads afterwards.
  ctx.deps.enableSourceMaps?.();
  const mail = await mailOptions(o);
  const trustProxy = await proxies(o.trustProxy);
  const dns = await dnsServer(o.dnsServer?.value, o.dnsServer?.source as string);
  const webhooks = webhookOptions(o);
  const r = await ctx.settings();
  if (r.kind !== 'embedded' || !r.db) {
    throw new UsageError(
      `serve serves an embedded platform, but profile "${r.profile}" is remote: pass --db, --database-url or ` +
        '--profile local',
    );
  }
  const db = r.db;
  // Before anything is opened or listens: a platform on PostgreSQL cannot start without it.
  const secretKey = secretKeyFor(ctx.deps.env, db);
  await ctx.endpoint(); // a file is made on first use, as for any command (a PostgreSQL database never is)
  const { startServer } = await import('../../platform/server.js');
  const accessLog = batchedLines((text) => ctx.io.err(text));
  const server = await startServer({
    db,
    host: o.host,
    port: o.port,
    publicUrl: o.publicUrl,
    mode: r.sandbox ? 'sandbox' : 'live',
    limits: { enabled: o.rateLimits },
    secretKey,
    serverLimits: {
      ...(o.maxConnections !== undefined && { maxConnections: o.maxConnections }),
      ...(o.maxConnectionsPerAddress !== undefined && { maxConnectionsPerAddress: o.maxConnectionsPerAddress }),
    },
    ...(trustProxy && { trustProxy }),
    ...(dns && { dnsServer: dns }),
    ...(mail && { mail }),
    webhooks,
    accessLog: accessLog.line,
    logger: (line) => ctx.io.err(line),
    ...ctx.deps.platform,
  }).catch((err: unknown) => {
    throw listenFailure(err, o.host, o.port) ?? databaseFailure(err, db);
  });
  // Listening for the shutdown signal before saying so: a Ctrl-C while the checks below run still stops the server.
  const shutdown = new Promise<void>((resolve) => {
    const subscribe = ctx.deps.onShutdown ?? (() => () => {});
    const unsubscribe = subscribe(() => {
      unsubscribe();
      resolve();
    });
  });
  ctx.io.err(`Listening on ${server.url}/v2 (${r.sandbox ? 'sandbox' : 'live'}, ${shownDb(db)}); Ctrl-C stops.`);
  if (isDatabaseUrl(db) && !(await hasOrganization(server.platform).catch(() => true))) {
    notice(ctx, 'The database holds no organization yet: make its platform with plat local init --database-url URL.');
  }
  if (!o.rateLimits) ctx.io.err('Rate limits are off (--no-rate-limits): for local development only.');
  await shutdown;
  ctx.io.err('Shutting down: finishing requests in flight…');
  await server.close();
  accessLog.flush();
  return done('Stopped.');
}

/**
 * The access log's lines, written once per turn of the event loop for all the requests that turn finished: one write
 * to stderr instead of one a request (on Linux a write to a pipe holds the event loop until it is done).
 */
function batchedLines(write: (text: string) => void): { line(line: string): void; flush(): void } {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('\n');
    pending = [];
    write(text);
  };
  return {
    line: (line) => {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

/** A value from its option, else from its environment variable (an empty one is unset), with where it came from. */
function sourced(
  option: string | undefined,
  flag: string,
  variable: string | undefined,
  name: string,
): Sourced | undefined {
  if (option !== undefined) return { value: option, source: flag };
  return variable ? { value: variable, source: name } : undefined;
}

/** `plat serve` */
export function register(cmd: Command, ctx: Context): void {
  asLeaf<ServeOptions>(cmd, ctx, {
    summary:
      'Serve the embedded platform over HTTP at http://HOST:PORT/v2 (--db, --database-url, --sandbox choose which)',
    examples: [
      'plat serve',
      'plat serve --host 0.0.0.0 --port 8080 --public-url https://plat.example.com',
      'plat serve --port 0',
      'plat serve --no-rate-limits   # local development: no 429s',
      'plat serve --host 0.0.0.0 --trust-proxy 10.0.0.0/8   # behind a load balancer',
      'PLAT_DATABASE_URL=postgres://plat:PASSWORD@db.example.com/plat PLAT_SECRET_KEY=… plat serve --host 0.0.0.0',
      'PLAT_SMTP_URL=smtps://plat%40example.com:PASSWORD@smtp.example.com plat serve --public-url https://plat.example.com',
    ],
    options: (c) => {
      c.option('--host <host>', 'interface to listen on', '127.0.0.1');
      c.option('--port <port>', 'port; 0 picks a free one', portNumber, 8080);
      c.option('--public-url <url>', 'origin that links in e-mails point at (default http://HOST:PORT)');
      c.option('--no-rate-limits', 'turn rate limits off (local development; also PLAT_RATE_LIMITS=off)');
      c.option(
        '--max-connections <n>',
        'connections held at once; more are closed unanswered (default 256)',
        positiveInt,
      );
      c.option(
        '--max-connections-per-address <n>',
        'connections held at once from one client address; more are closed unanswered (default 32; trusted proxies exempt)',
        positiveInt,
      );
      c.option(
        '--trust-proxy <addresses>',
        'proxies (IP addresses or CIDR ranges, comma-separated) whose X-Forwarded-For names the client; also PLAT_TRUST_PROXY',
      );
      c.option(
        '--dns-server <host[:port]>',
        'the DNS server that domain verification asks (an IP address; default the system resolver); also PLAT_DNS_SERVER',
      );
      c.option(
        '--smtp-url <url>',
        'also deliver the outbox (invitations) by SMTP: smtp://USER:PASSWORD@HOST:PORT (STARTTLS; required with credentials off this machine), ' +
          'smtps://… for TLS; also PLAT_SMTP_URL, which keeps the password out of the process list',
      );
      c.option(
        '--mail-from <address>',
        'sender of the e-mails, "Name <address>" (also PLAT_MAIL_FROM; default "plat <no-reply@HOST of the public URL>")',
      );
      c.option('--smtp-rate <n>', 'messages sent a second at most (default 10)', intBetween(1, 1000));
      c.option('--smtp-connections <n>', 'SMTP connections held at once (default 2)', intBetween(1, 20));
      c.option(
        '--allow-private-webhooks',
        'also deliver webhooks to private and link-local addresses (10.0.0.0/8, 192.168.0.0/16, fc00::/7…)',
      );
    },
    parse: (_args, o) => ({
      host: o.host,
      port: o.port,
      publicUrl: o.publicUrl,
      rateLimits: o.rateLimits !== false && ctx.deps.env.PLAT_RATE_LIMITS !== 'off',
      maxConnections: o.maxConnections,
      maxConnectionsPerAddress: o.maxConnectionsPerAddress,
      trustProxy: sourced(o.trustProxy, '--trust-proxy', ctx.deps.env.PLAT_TRUST_PROXY, 'PLAT_TRUST_PROXY'),
      dnsServer: sourced(o.dnsServer, '--dns-server', ctx.deps.env.PLAT_DNS_SERVER, 'PLAT_DNS_SERVER'),
      smtpUrl: sourced(o.smtpUrl, '--smtp-url', ctx.deps.env.PLAT_SMTP_URL, 'PLAT_SMTP_URL'),
      mailFrom: sourced(o.mailFrom, '--mail-from', ctx.deps.env.PLAT_MAIL_FROM, 'PLAT_MAIL_FROM'),
      smtpRate: o.smtpRate,
      smtpConnections: o.smtpConnections,
      allowPrivateWebhooks: o.allowPrivateWebhooks === true,
      webhookTiming: ctx.deps.env.PLAT_TEST_WEBHOOK_TIMING || undefined,
    }),
    run: serve,
  });
}
