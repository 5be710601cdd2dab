import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook endpoint for tests (docs/webhooks.md): a real node:http server on loopback that records every request
// and answers as told — a status (fixed, or by the request's number), or no answer at all (`hang`).

/** One request the receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  /** Node.js's headers: names in lower case. */
  headers: IncomingHttpHeaders;
  /** The body as text. */
  body: string;
}

export interface ReceiverOptions {
  /** The status answered: a number, or one per request by its number (1 for the first); default 200. */
  status?: number | ((n: number) => number);
  /** Never answers (the request is recorded, its connection held until `close`). */
  hang?: boolean;
}

export interface Receiver {
  /** `http://127.0.0.1:PORT/hook`. */
  url: string;
  /** Every request so far, in arrival order. */
  received: ReceivedRequest[];
  /** Resolves once `n` requests arrived (with all of them); rejects after `ms` (default 10 s) with what came. */
  waitFor(n: number, ms?: number): Promise<ReceivedRequest[]>;
  /** Stops listening and drops every connection, hanging ones included. */
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1, on a port of the system's choosing. */
export async function startReceiver(opts: ReceiverOptions = {}): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const held = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const n = received.length;
      for (const w of [...waiters]) w();
      if (opts.hang) {
        held.add(res);
        return;
      }
      const status = typeof opts.status === 'function' ? opts.status(n) : (opts.status ?? 200);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    waitFor: (n, ms = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(received.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver got ${received.length} of ${n} requests within ${ms} ms`));
        }, ms);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
