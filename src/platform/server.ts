import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type Http2Bindings, type HttpBindings } from '@hono/node-server';
import type { DirectReply } from './http/direct.js';
import { createPlatform, type Platform, type PlatformOptions } from './index.js';
import { answerClientError, missingHost, requestErrorResponse } from './listener-errors.js';
import type { DeliveryOptions, MailDelivery } from './mail/delivery.js';
import type { MailFrom } from './mail/settings.js';
import { appliedLimits, applyLimits, httpServerOptions, type ServerLimits, serverLimits } from './server-limits.js';

export { SERVER_LIMITS, type ServerLimits } from './server-limits.js';

/** A running listener over a platform. */
export interface RunningServer {
  /** `http://host:port`, with the port actually bound (useful with port 0). */
  url: string;
  platform: Platform;
  /** Requests being answered right now. */
  readonly inFlight: number;
  /** The timeouts and connection cap the listener runs with, read back from it. */
  readonly serverLimits: ServerLimits;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export interface ServerOptions extends Omit<PlatformOptions, 'publicUrl'> {
  host?: string;
  port?: number;
  publicUrl?: string;
  /** One line per request (method, path, status, time, request id); never headers or bodies. */
  accessLog?: (line: string) => void;
  /** Timeouts and the connection cap; the defaults are `SERVER_LIMITS` (docs/api.md). */
  serverLimits?: Partial<ServerLimits>;
  /**
   * Also delivers the outbox over SMTP, in the background (mail/delivery.ts). The sender defaults to
   * `plat <no-reply@HOST>`, HOST being the public URL's.
   */
  mail?: Omit<DeliveryOptions, 'from'> & { from?: MailFrom };
}

/** Serves the platform over HTTP (what `plat serve` runs). */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  let platform: Platform | undefined;
  // Requests that arrive while the platform opens (connecting, migrating, waiting for another server's migration)
  // wait for it rather than find none.
  let opened: (platform: Platform) => void = () => {};
  let failed: (err: unknown) => void = () => {};
  const ready = new Promise<Platform>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  ready.catch(() => {}); // startServer itself reports the failure
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const limits = serverLimits(opts.serverLimits);
  const logger = opts.logger ?? ((line: string) => process.stderr.write(`${line}\n`));
  const listener = getRequestListener(
    async (request: Request, env: HttpBindings | Http2Bindings) => {
      inFlight++;
      const started = performance.now();
      try {
        // The bindings carry the peer's address: failed authentication is limited per address.
        const response =
          missingHost((env as HttpBindings).incoming) ?? (await (platform ?? (await ready)).fetch(request, env));
        if (opts.accessLog) {
          const ms = (performance.now() - started).toFixed(1);
          const path = new URL(request.url).pathname;
          opts.accessLog(
            `${request.method} ${path} ${response.status} ${ms}ms ${response.headers.get('x-request-id') ?? '-'}`,
          );
        }
        return response;
      } finally {
        inFlight--;
        if (inFlight === 0) drained?.();
      }
    },
    {
      hostname: host,
      errorHandler: (err) => {
        const response = requestErrorResponse(err, logger);
        opts.accessLog?.(`- - ${response.status} - ${response.headers.get('x-request-id')}`);
        return response;
      },
    },
  );
  /** A GET to an authenticated route answered without the Web request and response (http/direct.ts). */
  const answerDirectly = (reply: Promise<DirectReply>, res: ServerResponse, started: number) => {
    inFlight++;
    reply
      .then((r) => {
        if (opts.accessLog) {
          opts.accessLog(`GET ${r.path} ${r.status} ${(performance.now() - started).toFixed(1)}ms ${r.requestId}`);
        }
        res.writeHead(r.status, r.headers);
        res.end(r.body ?? undefined);
      })
      .catch((err: unknown) => {
        // The direct path answers its own errors: this is a fault of the listener's.
        logger(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        res.destroy();
      })
      .finally(() => {
        inFlight--;
        if (inFlight === 0) drained?.();
      });
  };
  const server = createServer(httpServerOptions(limits), (req, res) => {
    // Before the direct path is asked: it answers as far as its first wait at once (SQLite's reads are synchronous).
    const started = opts.accessLog ? performance.now() : 0;
    let direct: Promise<DirectReply> | undefined;
    try {
      direct = platform?.direct(req);
    } catch (err) {
      // A fault in choosing whether to answer directly must not take the process down: the app answers instead.
      logger(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
    if (direct) answerDirectly(direct, res, started);
    else listener(req, res);
  });
  applyLimits(server, limits);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket, opts.accessLog));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8080, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let delivery: MailDelivery | undefined;
  try {
    platform = await createPlatform({
      ...opts,
      logger,
      publicUrl: opts.publicUrl ?? origin,
      routeMatching: 'compiled',
    });
    // A server that could not sign a token or open an SSO secret must not start as if it could.
    platform.checkSecretKey();
    if (opts.mail) delivery = await startMailDelivery(platform, opts.mail, logger);
    opened(platform);
  } catch (err) {
    failed(err);
    await platform?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    url: origin,
    platform,
    get inFlight() {
      return inFlight;
    },
    serverLimits: appliedLimits(server, limits),
    close: () => {
      closing ??= (async () => {
        // Mail stops claiming at once, and has until the requests are answered and its grace is over to finish.
        const stoppingMail = delivery?.stop();
        await new Promise<void>((resolve) => {
          // Idle keep-alive sockets would hold close() open until they time out: end each one as soon as it has
          // answered its last request. Busy sockets finish their response first.
          const reap = setInterval(() => server.closeIdleConnections(), 20);
          server.close(() => {
            clearInterval(reap);
            resolve();
          });
          server.closeIdleConnections();
        });
        if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
        await stoppingMail;
        await platform?.close();
      })();
      return closing;
    },
  };
}

/** Starts delivering the platform's outbox; nodemailer is loaded only by a server that sends mail. */
async function startMailDelivery(
  platform: Platform,
  mail: NonNullable<ServerOptions['mail']>,
  log: (line: string) => void,
): Promise<MailDelivery> {
  const [{ startDelivery }, { defaultMailFrom }] = await Promise.all([
    import('./mail/delivery.js'),
    import('./mail/settings.js'),
  ]);
  const base = platform.base();
  const from = mail.from ?? defaultMailFrom(base.publicUrl);
  return startDelivery({ outbox: base.stores.outbox, clock: base.clock, log }, { ...mail, from });
}
