// What a public route's handler (the sign-in pages, the OAuth endpoints, discovery, SSO answers) gets of its request,
// and how it answers: a small call object in place of a web framework's context. Handlers return a `Reply`.
import type { LimitState } from '../limits/bucket.js';
import type { Limiter } from '../limits/limiter.js';
import { bodyText, type Incoming } from './incoming.js';
import { headerList, type Reply } from './reply.js';

/** The rate limits of a request, for the handlers that charge failed sign-ins (limits/sign-in.ts). */
export interface RequestLimits {
  limiter: Limiter;
  /** The client address failures are charged to. */
  ip: string;
  /** The address's budget as last seen (set by a charge or a check): its headers go on the answer. */
  state?: LimitState;
}

/** A cookie's attributes, as the sign-in pages set them. */
export interface CookieOptions {
  path: string;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax';
  secure?: boolean;
}

/** The request as a public handler reads it. */
export interface PageRequest {
  method: string;
  /** The whole URL: the origin the request was sent to, the path and the query. */
  readonly url: string;
  path: string;
  /** The query string without its `?`, as sent. */
  query: string;
  /** A header's value, or undefined. */
  header(name: string): string | undefined;
  /** A path parameter, decoded. */
  param(name: string): string | undefined;
  /** The body as text (`''` when none). */
  text(): Promise<string>;
}

/** An answer whose content type is `type` unless `headers` name one. */
function typed(
  body: string,
  status: number,
  headers: Readonly<Record<string, string>> | undefined,
  type: string,
): Reply {
  const list = headerList(headers);
  if (!list.includes('content-type')) list.unshift('content-type', type);
  return { status, headers: list, body };
}

/** A public route's call: its request, the client's address, its limits, and the answers it can give. */
export class PageCall {
  readonly req: PageRequest;
  /** The connection's peer address; null in-process. Proxies are not trusted. */
  readonly peer: string | null;
  readonly limits: RequestLimits | undefined;
  /** Headers every answer of this call carries besides its own (cookies set on the way). */
  readonly #extra: string[] = [];

  constructor(incoming: Incoming, params: Record<string, string>, limits: RequestLimits | undefined) {
    this.peer = incoming.peer;
    this.limits = limits;
    let url: string | undefined;
    this.req = {
      method: incoming.method,
      path: incoming.path,
      query: incoming.query,
      get url() {
        url ??= `${incoming.origin()}${incoming.path}${incoming.query ? `?${incoming.query}` : ''}`;
        return url;
      },
      header: (name) => incoming.header(name.toLowerCase()) ?? undefined,
      param: (name) => params[name],
      text: () => bodyText(incoming),
    };
  }

  /** The value of a cookie the browser sent, or undefined. */
  cookie(name: string): string | undefined {
    const header = this.req.header('cookie');
    if (!header) return undefined;
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
      const value = part
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
    return undefined;
  }

  /** Sets a cookie on whatever this call answers. */
  setCookie(name: string, value: string, opts: CookieOptions): void {
    const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${opts.path}`];
    if (opts.httpOnly) parts.push('HttpOnly');
    if (opts.secure) parts.push('Secure');
    if (opts.sameSite) parts.push(`SameSite=${opts.sameSite}`);
    this.#extra.push('set-cookie', parts.join('; '));
  }

  /** An answer with a body (or none), its content type among `headers`. */
  body(data: string | null, status: number, headers?: Readonly<Record<string, string>>): Reply {
    return { status, headers: headerList(headers), body: data };
  }

  /** A JSON answer (`headers` may name another JSON content type). */
  json(value: unknown, status = 200, headers?: Readonly<Record<string, string>>): Reply {
    return typed(JSON.stringify(value), status, headers, 'application/json');
  }

  /** An HTML page (`headers` may give the content type's exact spelling). */
  html(markup: string, status = 200, headers?: Readonly<Record<string, string>>): Reply {
    return typed(markup, status, headers, 'text/html; charset=UTF-8');
  }

  /** `reply` with the headers set on the way (cookies). */
  finish(reply: Reply): Reply {
    if (this.#extra.length > 0) reply.headers.push(...this.#extra);
    return reply;
  }
}
