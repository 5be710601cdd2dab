import { timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError } from './errors.js';

/** The redirect receiver of one sign-in (RFC 8252 §7.3: a loopback IP literal, any port). */
export interface Loopback {
  /** `http://127.0.0.1:<port>/callback`. */
  redirectUri: string;
  /** The callback whose `state` matched; rejects when none came within the timeout. */
  callback: Promise<URL>;
  /** Shows the browser that is waiting on the callback how the sign-in ended, then stops listening. */
  finish(outcome: { ok: boolean; message: string }): Promise<void>;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function page(res: ServerResponse, status: number, title: string, message: string): void {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "default-src 'none'",
    'Referrer-Policy': 'no-referrer',
    Connection: 'close',
  });
  res.end(html);
}

function sameState(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Listens on 127.0.0.1, on a port the system picks, for the one callback of this sign-in: `GET /callback` with the
 * expected `state`. Any other request gets an error page and is otherwise ignored, so a stray or forged request
 * can neither end nor hijack the sign-in. After `timeoutMs` without it, `callback` rejects.
 */
export async function startLoopback(o: { state: string; timeoutMs: number }): Promise<Loopback> {
  let waiting: ServerResponse | undefined;
  let settle: { resolve: (url: URL) => void; reject: (err: Error) => void } | undefined;
  const callback = new Promise<URL>((resolve, reject) => {
    settle = { resolve, reject };
  });
  callback.catch(() => {}); // observed by the caller; never an unhandled rejection while it is busy elsewhere

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      page(res, 404, 'Not found', 'This address only receives the sign-in of plat.');
      return;
    }
    if (waiting || !sameState(url.searchParams.get('state'), o.state)) {
      page(res, 400, 'Not this sign-in', 'This link does not belong to the sign-in plat is waiting for. Start again.');
      return;
    }
    waiting = res;
    settle?.resolve(new URL(`${redirectUri}${url.search}`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const redirectUri = `http://127.0.0.1:${port}/callback`;

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= new Promise<void>((resolve) => {
      clearTimeout(timer);
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return stopped;
  };
  const timer = setTimeout(() => {
    const seconds = Math.round(o.timeoutMs / 1000);
    settle?.reject(new AuthError('unauthenticated', `no sign-in came back within ${seconds} s; nothing was stored`));
    void stop();
  }, o.timeoutMs);
  timer.unref();

  return {
    redirectUri,
    callback,
    finish: async ({ ok, message }) => {
      if (waiting && !waiting.writableEnded) {
        page(waiting, ok ? 200 : 400, ok ? 'Signed in' : 'Sign-in failed', message);
      }
      await stop();
    },
  };
}
