import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { clientAddress, connectionGroup, plainAddress, type TrustedProxies, trustedProxies } from './client-address.js';
import { PlatformError } from './errors.js';
import { cutShort, type Incoming, MAX_BODY_BYTES, tooLarge } from './http/incoming.js';
import { errorReply, newRequestId, type Reply } from './http/reply.js';
import { createPlatform, type Platform, type PlatformOptions } from './index.js';
import { internalsOf } from './internals.js';
import { answerClientError } from './listener-errors.js';
import type { DeliveryOptions, MailDelivery } from './mail/delivery.js';
import type { MailFrom } from './mail/settings.js';
import { appliedLimits, applyLimits, httpServerOptions, type ServerLimits, serverLimits } from './server-limits.js';
import type { WebhookDelivery, WebhookDeliveryOptions } from './webhooks/delivery.js';

export { trustedProxies } from './client-address.js';
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
  /** Timeouts and the connection caps; the defaults are `SERVER_LIMITS` (docs/api.md). */
  serverLimits?: Partial<ServerLimits>;
  /**
   * The proxies whose `X-Forwarded-For` names the client (addresses or CIDR ranges: `--trust-proxy`); from any other
   * peer the header is ignored. They are exempt from the per-address connection cap.
   */
  trustProxy?: readonly string[];
  /**
   * Also delivers the outbox over SMTP, in the background (mail/delivery.ts). The sender defaults to
   * `plat <no-reply@HOST>`, HOST being the public URL's.
   */
  mail?: Omit<DeliveryOptions, 'from'> & { from?: MailFrom };
  /**
   * How webhooks are delivered, in the background (webhooks/delivery.ts); `false`: not by this server (another one
   * sharing the database delivers them).
   */
  webhooks?: WebhookDeliveryOptions | false;
}

/** A request target's path and query as the pipeline reads them, or undefined when it names no path of ours. */
function targetOf(url: string): { path: string; query: string } | undefined {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  // Nearly every target is already in the form the URL parser would give: taken as it is. Dot segments, backslashes,
  // characters the parser escapes, an absolute-form target: resolved by the parser, as in-process (fetch.ts).
  if (PLAIN_PATH.test(path) && !path.includes('/.') && !/%2e/i.test(path)) return { path, query };
  try {
    const parsed = new URL(url, 'http://target.invalid');
    if (!url.startsWith('/') && parsed.origin === 'http://target.invalid') return undefined;
    return { path: parsed.pathname, query: parsed.search.slice(1) };
  } catch {
    return undefined;
  }
}
const PLAIN_PATH = /^\/[\w\-.~!$&'()*+,;=:@/%]*$/;

/** The Hosts taken as they are; any other is checked by the URL parser. */
const PLAIN_HOST = /^[a-z0-9._-]+(?::\d{1,5})?$/i;

/** Whether a `Host` header names a host (and port) and nothing else. */
function validHost(host: string): boolean {
  if (PLAIN_HOST.test(host)) return true;
  if (/[\s/?#@\\]/.test(host)) return false;
  try {
    const url = new URL(`http://${host}/`);
    return url.pathname === '/' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/**
 * A request's header by its name in lower case, as a Web `Headers` reads it: any case of the name, a repeated header's
 * values joined with ", ". A request carries a handful of headers: reading them in turn costs less than making
 * Node.js's object of them all.
 */
function headerOf(req: IncomingMessage, name: string): string | null {
  const raw = req.rawHeaders;
  let value: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const n = raw[i] as string;
    if (n.length === name.length && n.toLowerCase() === name) {
      value = value === null ? (raw[i + 1] as string) : `${value}, ${raw[i + 1]}`;
    }
  }
  return value;
}

/** Reads a request's body whole, refusing it with `413` as soon as it passes the limit. */
function readBody(req: IncomingMessage): Promise<Uint8Array | null> {
  const length = headerOf(req, 'content-length');
  if (length === null && headerOf(req, 'transfer-encoding') === null) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(size === 0 && length === null ? null : Buffer.concat(chunks, size));
    };
    // The client went away mid-body: its mistake, not the server's (no 500, no stack in the log).
    const onAbort = () => {
      cleanup();
      reject(cutShort());
    };
    const onClose = () => {
      if (!req.complete) onAbort();
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}

/** node:http's request as the pipeline reads it; a `400` reply when it cannot be read (no or a bad Host, target). */
function incomingOf(req: IncomingMessage, trusted: TrustedProxies | undefined): Incoming | Reply {
  const host = headerOf(req, 'host') ?? undefined;
  if (host === undefined && req.httpVersion === '1.1') {
    return errorReply(new PlatformError('invalid_request', 'a Host header is required'), newRequestId());
  }
  const target = targetOf(req.url ?? '');
  if (!target || (host !== undefined && !validHost(host))) {
    return errorReply(
      new PlatformError('invalid_request', 'malformed HTTP request: invalid Host or URL'),
      newRequestId(),
    );
  }
  let body: Promise<Uint8Array | null> | undefined;
  return {
    method: req.method ?? 'GET',
    path: target.path,
    query: target.query,
    header: (name) => headerOf(req, name),
    body: () => {
      body ??= readBody(req);
      return body;
    },
    peer: peerOf(req, trusted),
    origin: () => `http://${host ?? 'localhost'}`,
  };
}

/** The client a request is from (client-address.ts); null once its connection is gone. */
function peerOf(req: IncomingMessage, trusted: TrustedProxies | undefined): string | null {
  const remote = req.socket.remoteAddress;
  if (remote === undefined) return null;
  return clientAddress(remote, trusted ? headerOf(req, 'x-forwarded-for') : null, trusted);
}

/** How long a client still sending a body that will not be read is given after the answer, and how much more is read. */
const LINGER_MS = 500;
const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * Writes a reply: its status, its headers with the body's length, its body (none for `HEAD`, as Node.js knows). A
 * request body refused for its size, or answered without being read (an unknown route), is not read any further: the
 * answer says `Connection: close`, and the connection is closed once the body has arrived or after a moment, what
 * still arrives meanwhile discarded — so that a client still sending reads this answer rather than a reset.
 */
function write(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  if (reply.body instanceof ReadableStream) {
    // A HEAD is answered the stream's headers, and nothing is streamed.
    if (req.method === 'HEAD') {
      void reply.body.cancel();
      res.writeHead(reply.status, reply.headers);
      res.end();
      return;
    }
    void pump(res, reply, reply.body);
    return;
  }
  const { headers } = reply;
  // Encoded once: its length is the bytes' (a string would be measured, then encoded again by Node.js).
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : (reply.body as Uint8Array | null);
  if (body !== null) headers.push('content-length', String(body.byteLength));
  if (req.complete) {
    res.writeHead(reply.status, headers);
    res.end(body ?? undefined);
    return;
  }
  headers.push('connection', 'close');
  // Node.js ends a `Connection: close` answer by destroying its socket once written (`destroySoon`), and a client
  // still sending would then be reset before it reads the answer: the socket is only half-closed then, and closed
  // (Node.js's own way, kept) once the body has arrived or the moment is over.
  const { socket } = req;
  const close = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    socket.end();
  };
  res.writeHead(reply.status, headers);
  res.end(body ?? undefined);
  let discarded = 0;
  setTimeout(close, LINGER_MS).unref();
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) close();
  });
  req.on('end', close);
  req.resume();
}

/**
 * Writes a stream's reply (Server-Sent Events): the headers at once, then each chunk as the stream gives it, waiting
 * while the client is slow to read; the stream is cancelled when the connection closes, and the answer ends with it.
 */
async function pump(res: ServerResponse, reply: Reply, stream: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stream.getReader();
  const gone = () => void reader.cancel().catch(() => {});
  res.once('close', gone);
  res.writeHead(reply.status, reply.headers);
  res.flushHeaders();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
    }
  } catch {
    // The stream failed (the database closed under it): the answer ends, and the client reconnects.
  } finally {
    res.off('close', gone);
    if (!res.destroyed) res.end();
  }
}

/** Serves the platform over HTTP (what `plat serve` runs): node:http in, the pipeline, node:http out. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  let answer: ((incoming: Incoming) => Promise<Reply>) | undefined;
  // Requests that arrive while the platform opens (connecting, migrating, waiting for another server's migration)
  // wait for it rather than find none.
  let opened: (answer: (incoming: Incoming) => Promise<Reply>) => void = () => {};
  let failed: (err: unknown) => void = () => {};
  const ready = new Promise<(incoming: Incoming) => Promise<Reply>>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  ready.catch(() => {}); // startServer itself reports the failure
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const limits = serverLimits(opts.serverLimits);
  const trusted = opts.trustProxy?.length ? trustedProxies(opts.trustProxy) : undefined;
  const logger = opts.logger ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = opts.accessLog;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    const started = log ? performance.now() : 0;
    let reply: Reply;
    let incoming: Incoming | Reply = { status: 500, headers: [], body: null };
    try {
      incoming = incomingOf(req, trusted);
      reply = 'status' in incoming ? incoming : await (answer ?? (await ready))(incoming);
    } catch (err) {
      // The pipeline answers its own errors: this is a fault of the listener's.
      const requestId = newRequestId();
      logger(
        `internal error (request ${requestId}): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      reply = errorReply(new PlatformError('internal_error', 'internal error'), requestId);
    }
    try {
      const requestId = reply.headers[reply.headers.indexOf('x-request-id') + 1] ?? '-';
      write(req, res, reply);
      if (log) {
        const [peer, path] =
          'path' in incoming ? [incoming.peer, incoming.path] : [peerOf(req, trusted), (req.url ?? '').split('?')[0]];
        const ms = (performance.now() - started).toFixed(1);
        log(`${peer ?? '-'} ${req.method} ${path} ${reply.status} ${ms}ms ${requestId}`);
      }
    } catch (err) {
      // A fault in writing the answer must not take the process down: this connection ends, the others go on.
      logger(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      res.destroy();
    } finally {
      inFlight--;
      if (inFlight === 0) drained?.();
    }
  };

  const server = createServer(httpServerOptions(limits), (req, res) => void handle(req, res));
  // `Expect: 100-continue`: a body announced over the limit is refused at once, before the client sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(headerOf(req, 'content-length') ?? 0) > MAX_BODY_BYTES) {
      write(req, res, errorReply(tooLarge(), newRequestId()));
      return;
    }
    res.writeContinue();
    void handle(req, res);
  });
  applyLimits(server, limits);
  // One address (an IPv6 one by its /64) holds at most `maxConnectionsPerAddress` of the connections; trusted proxies
  // speak for many clients, and are exempt.
  const perAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const peer = plainAddress(socket.remoteAddress ?? '');
    if (trusted?.has(peer)) return;
    const address = connectionGroup(peer);
    const open = perAddress.get(address) ?? 0;
    if (open >= limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    perAddress.set(address, open + 1);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket, log));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8080, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let platform: Platform | undefined;
  let delivery: MailDelivery | undefined;
  let webhooks: WebhookDelivery | undefined;
  try {
    platform = await createPlatform({ ...opts, logger, publicUrl: opts.publicUrl ?? origin });
    const inside = internalsOf(platform);
    // A server that could not sign a token or open an SSO secret must not start as if it could.
    inside.checkSecretKey();
    if (opts.mail) delivery = await startMailDelivery(platform, opts.mail, logger);
    if (opts.webhooks !== false) {
      const { startWebhookDelivery } = await import('./webhooks/delivery.js');
      webhooks = startWebhookDelivery(inside.base, logger, opts.webhooks);
    }
    answer = inside.answer;
    opened(answer);
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
        // Mail and webhooks stop claiming at once, and have until the requests are answered and their grace is over
        // to finish; event streams end now (their connections would hold the listener open).
        const stoppingMail = delivery?.stop();
        const stoppingWebhooks = webhooks?.stop();
        internalsOf(platform as Platform).endStreams();
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
        await stoppingWebhooks;
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
  const base = internalsOf(platform).base();
  const from = mail.from ?? defaultMailFrom(base.publicUrl);
  return startDelivery({ outbox: base.stores.outbox, clock: base.clock, log }, { ...mail, from });
}
