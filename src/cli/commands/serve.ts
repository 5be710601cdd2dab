import type { Command } from 'commander';
import { secretKeyOf } from '../connection.js';
import type { Context } from '../context.js';
import { bootstrapEmbedded, bootstrapNotice, needsBootstrap } from '../embedded.js';
import { UsageError } from '../errors.js';
import { listenFailure } from '../listen-failure.js';
import { done, type Output } from '../output/result.js';
import { portNumber, positiveInt } from '../parse.js';
import { asLeaf } from '../verb.js';

interface ServeOptions {
  host: string;
  port: number;
  publicUrl?: string;
  /** false with --no-rate-limits (or PLAT_RATE_LIMITS=off): for local development only. */
  rateLimits: boolean;
  /** The listener's connection cap; the platform's default (256) when not given. */
  maxConnections?: number;
}

/**
 * Serves the embedded platform until SIGINT/SIGTERM: one access-log line per request on stderr, then a graceful
 * close that lets in-flight requests finish. The bound URL goes to stderr first, so `--port 0` is usable by scripts.
 */
async function serve(o: ServeOptions, ctx: Context): Promise<Output> {
  // First, before the platform's code is loaded: Node.js maps only what it loads afterwards.
  ctx.deps.enableSourceMaps?.();
  const r = await ctx.settings();
  if (r.kind !== 'embedded' || !r.db) {
    throw new UsageError(
      `serve serves an embedded platform, but profile "${r.profile}" is remote: pass --db or --profile local`,
    );
  }
  if (needsBootstrap(r)) {
    const made = await bootstrapEmbedded(ctx, r);
    ctx.notice(bootstrapNotice(made, 'admin@localhost', (await ctx.credentials()).location));
  }
  const { startServer } = await import('../../platform/server.js');
  const server = await startServer({
    db: r.db,
    host: o.host,
    port: o.port,
    publicUrl: o.publicUrl,
    mode: r.sandbox ? 'sandbox' : 'live',
    limits: { enabled: o.rateLimits },
    secretKey: secretKeyOf(ctx.env),
    ...(o.maxConnections !== undefined && { serverLimits: { maxConnections: o.maxConnections } }),
    accessLog: (line) => ctx.io.err(line),
    logger: (line) => ctx.io.err(line),
    ...ctx.deps.platform,
  }).catch((err: unknown) => {
    throw listenFailure(err, o.host, o.port) ?? err;
  });
  ctx.io.err(`Listening on ${server.url}/v2 (${r.sandbox ? 'sandbox' : 'live'}, ${r.db}); Ctrl-C stops.`);
  if (!o.rateLimits) ctx.io.err('Rate limits are off (--no-rate-limits): for local development only.');
  await new Promise<void>((resolve) => {
    const subscribe = ctx.deps.onShutdown ?? (() => () => {});
    const unsubscribe = subscribe(() => {
      unsubscribe();
      resolve();
    });
  });
  ctx.io.err('Shutting down: finishing requests in flight…');
  await server.close();
  return done('Stopped.');
}

/** `plat serve` */
export function register(cmd: Command, ctx: Context): void {
  asLeaf<ServeOptions>(cmd, ctx, {
    summary: 'Serve the embedded platform over HTTP at http://HOST:PORT/v2 (--db, --sandbox choose which)',
    examples: [
      'plat serve',
      'plat serve --host 0.0.0.0 --port 8080 --public-url https://plat.example.com',
      'plat serve --port 0',
      'plat serve --no-rate-limits   # local development: no 429s',
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
    },
    parse: (_args, o) => ({
      host: o.host,
      port: o.port,
      publicUrl: o.publicUrl,
      rateLimits: o.rateLimits !== false && ctx.deps.env.PLAT_RATE_LIMITS !== 'off',
      maxConnections: o.maxConnections,
    }),
    run: serve,
  });
}
