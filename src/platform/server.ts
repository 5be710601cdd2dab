import type { AddressInfo } from 'node:net';
import { createAdaptorServer, type Http2Bindings, type HttpBindings, type ServerType } from '@hono/node-server';
import { createPlatform, type Platform, type PlatformOptions } from './index.js';

/** A running listener over a platform. */
export interface RunningServer {
  /** `http://host:port`, with the port actually bound (useful with port 0). */
  url: string;
  platform: Platform;
  /** Requests being answered right now. */
  readonly inFlight: number;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export interface ServerOptions extends Omit<PlatformOptions, 'publicUrl'> {
  host?: string;
  port?: number;
  publicUrl?: string;
  /** One line per request (method, path, status, time, request id); never headers or bodies. */
  accessLog?: (line: string) => void;
}

/** Serves the platform over HTTP (what `plat serve` runs). */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  let platform: Platform | undefined;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const server: ServerType = createAdaptorServer({
    hostname: host,
    fetch: async (request: Request, env: HttpBindings | Http2Bindings) => {
      inFlight++;
      const started = performance.now();
      try {
        // The bindings carry the peer's address: failed authentication is limited per address.
        const response = await (platform as Platform).fetch(request, env);
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
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8080, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  platform = createPlatform({ ...opts, publicUrl: opts.publicUrl ?? origin });
  let closing: Promise<void> | undefined;
  return {
    url: origin,
    platform,
    get inFlight() {
      return inFlight;
    },
    close: () => {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          // Idle keep-alive sockets would hold close() open until they time out: end each one as soon as it has
          // answered its last request. Busy sockets finish their response first.
          const reap = setInterval(() => 'closeIdleConnections' in server && server.closeIdleConnections(), 20);
          server.close(() => {
            clearInterval(reap);
            resolve();
          });
          if ('closeIdleConnections' in server) server.closeIdleConnections();
        });
        if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
        platform?.close();
      })();
      return closing;
    },
  };
}
