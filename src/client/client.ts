import type { List } from '../contract/common.js';
import type { ServerSentEvent, StreamOptions } from '../contract/endpoint.js';
import { PER_PAGE_MAX } from '../contract/limits.js';
import { apiErrorFrom } from './error-body.js';
import { ApiError, NetworkError } from './errors.js';
import { serverSentEvents } from './event-stream.js';
import { createResources, type Query, type Resources } from './resources.js';
import { backoffDelay, errorCode, IDEMPOTENT_METHODS, isTransient, rateLimitDelay } from './retry.js';
import { stopwatch } from './stopwatch.js';

export type { Query } from './resources.js';
/** For the auth side's `--verbose` lines, timed as the client's. */
export { stopwatch };

/** The one seam between the client and a platform: the embedded one in-process, or a remote one over HTTP. */
export type Fetch = (request: Request) => Promise<Response>;

/** What `--verbose` shows about one attempt of one call. Never holds a header value or a body. */
export interface RequestInfo {
  method: string;
  url: string;
  /** `null` when no answer came (connection failure). */
  status: number | null;
  ms: number;
  requestId: string | null;
  /** 1 for the first try, 2 for the first retry… */
  attempt: number;
  rateLimit?: { limit: number; remaining: number; reset: number };
}

/** How to build a client. */
export interface ClientOptions {
  fetch: Fetch;
  /** Ends with `/v2`, e.g. `http://127.0.0.1:8080/v2` or `http://embedded.plat/v2`. */
  baseUrl: string;
  /** The credential headers of each attempt: `{'X-API-Key': …}` or `{Authorization: 'Bearer …'}`. */
  auth: () => Promise<Record<string, string>>;
  /** Called once after a `401`: `true` means the credential was refreshed and the request is sent once more. */
  onUnauthorized?: () => Promise<boolean>;
  /** Sent as `X-Org-Id`. */
  orgId?: string;
  /** Sent as `X-Request-Id`. */
  requestId?: string;
  /** Retries for `429` and for connection failures of idempotent calls (default 3). */
  maxRetries?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source, in [0, 1). */
  random?: () => number;
  /** `--verbose` hook, called after every attempt. */
  onRequest?: (info: RequestInfo) => void;
  userAgent?: string;
}

/** Options of one call. */
export interface RequestOptions {
  query?: Query;
  body?: unknown;
}

const DEFAULT_MAX_RETRIES = 3;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function rateLimitOf(headers: Headers): RequestInfo['rateLimit'] {
  const limit = Number(headers.get('x-ratelimit-limit') ?? Number.NaN);
  const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
  const reset = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
  return [limit, remaining, reset].every(Number.isFinite) ? { limit, remaining, reset } : undefined;
}

/** What one attempt produced: an answer read to the end, or the reason there was none. */
type Outcome = { ok: true; status: number; headers: Headers; text: string } | { ok: false; error: unknown };

/** The typed resource groups (`users`, `projects`, …) that `createResources` gives every client. */
export interface PlatformClient extends Resources {}

/** A typed client of the platform API over an injected `fetch`; the same code serves embedded and remote. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every member of Resources.
export class PlatformClient {
  private readonly opts: ClientOptions;
  private readonly baseUrl: string;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const resources: Resources = createResources(this); // typed, so a missing group fails to compile
    Object.assign(this, resources);
  }

  /** The absolute URL of `path` (below `/v2`) with the given query. */
  url(path: string, query?: Query): string {
    const url = new URL(`${this.baseUrl}${path.startsWith('/') ? path : `/${path}`}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /**
   * One API call: retries `429` (honouring `Retry-After`) and connection failures of idempotent methods, then
   * returns the parsed body (`undefined` for `204`) or throws `ApiError` / `NetworkError`.
   */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const o = this.opts;
    const maxRetries = o.maxRetries ?? DEFAULT_MAX_RETRIES;
    const sleep = o.sleep ?? defaultSleep;
    const random = o.random ?? Math.random;
    const url = this.url(path, opts.query);
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    let retries = 0;
    let attempt = 0;
    let refreshed = false;
    for (;;) {
      attempt++;
      const elapsed = stopwatch();
      const outcome = await this.attempt(method, url, body);
      const ms = elapsed();
      if (!outcome.ok) {
        o.onRequest?.({ method, url, status: null, ms, requestId: null, attempt });
        const code = errorCode(outcome.error);
        if (isTransient(code) && IDEMPOTENT_METHODS.has(method) && retries < maxRetries) {
          await sleep(backoffDelay(retries, random));
          retries++;
          continue;
        }
        throw networkError(method, url, outcome.error, code, retries);
      }
      const { status, headers, text } = outcome;
      const requestId = headers.get('x-request-id');
      const rateLimit = rateLimitOf(headers);
      o.onRequest?.({ method, url, status, ms, requestId, attempt, ...(rateLimit && { rateLimit }) });
      if (status === 429 && retries < maxRetries) {
        // A 429 means the request was not processed, so even a POST may be sent again.
        await sleep(rateLimitDelay(headers.get('retry-after'), random));
        retries++;
        continue;
      }
      if (status === 401 && o.onUnauthorized && !refreshed) {
        refreshed = true;
        if (await o.onUnauthorized()) continue;
      }
      if (status < 200 || status > 299) throw apiErrorFrom(status, headers, text, retries);
      if (status === 204 || text === '') return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        const message = `the server answered HTTP ${status} with a body that is not JSON`;
        throw new ApiError({
          status,
          code: 'internal_error',
          message,
          requestId,
          retries,
          body: { code: 'internal_error', message, status, requestId },
        });
      }
    }
  }

  /**
   * Opens a stream endpoint (Server-Sent Events) and returns its events as they come: resumed after
   * `lastEventId` when given, ended by `signal` (or by the server). Refusals throw `ApiError` as `request` does,
   * after one credential refresh on a `401`; a connection that fails throws `NetworkError`. Never retried here: the
   * caller decides how to resume.
   */
  async stream(path: string, opts: StreamOptions = {}): Promise<AsyncIterable<ServerSentEvent>> {
    const o = this.opts;
    const url = this.url(path);
    let refreshed = false;
    for (;;) {
      const headers = new Headers({ Accept: 'text/event-stream', 'User-Agent': o.userAgent ?? 'plat-cli' });
      if (o.orgId) headers.set('X-Org-Id', o.orgId);
      if (o.requestId) headers.set('X-Request-Id', o.requestId);
      if (opts.lastEventId) headers.set('Last-Event-ID', opts.lastEventId);
      for (const [name, value] of Object.entries(await o.auth())) headers.set(name, value);
      const elapsed = stopwatch();
      let res: Response;
      try {
        res = await o.fetch(new Request(url, { method: 'GET', headers, ...(opts.signal && { signal: opts.signal }) }));
      } catch (error) {
        o.onRequest?.({ method: 'GET', url, status: null, ms: elapsed(), requestId: null, attempt: 1 });
        throw networkError('GET', url, error, errorCode(error), 0);
      }
      const requestId = res.headers.get('x-request-id');
      o.onRequest?.({ method: 'GET', url, status: res.status, ms: elapsed(), requestId, attempt: 1 });
      if (res.status === 401 && o.onUnauthorized && !refreshed) {
        refreshed = true;
        await res.body?.cancel();
        if (await o.onUnauthorized()) continue;
        throw apiErrorFrom(401, res.headers, '', 0);
      }
      if (res.status < 200 || res.status > 299 || !res.body)
        throw apiErrorFrom(res.status, res.headers, await res.text(), 0);
      return serverSentEvents(res.body, opts.signal);
    }
  }

  /** One page of a list, in whichever mode the query picks (offset by default, cursor with `limit`/`cursor`). */
  page<T>(path: string, query?: Query): Promise<List<T>> {
    return this.request<List<T>>('GET', path, { query });
  }

  /**
   * Every record of a list, through cursor paging (`limit` 100 unless given). `onPage` gets the running count of
   * records fetched after each page, for progress. Falls back to page numbers if the server answers in offset mode.
   */
  async *all<T>(path: string, query: Query = {}, onPage?: (count: number) => void): AsyncGenerator<T> {
    let count = 0;
    for await (const data of pages((q: Query) => this.page<T>(path, q), query)) {
      count += data.length;
      onPage?.(count);
      yield* data;
    }
  }

  private async attempt(method: string, url: string, body: string | undefined): Promise<Outcome> {
    const o = this.opts;
    const headers = new Headers({ Accept: 'application/json', 'User-Agent': o.userAgent ?? 'plat-cli' });
    if (body !== undefined) headers.set('Content-Type', 'application/json');
    if (o.orgId) headers.set('X-Org-Id', o.orgId);
    if (o.requestId) headers.set('X-Request-Id', o.requestId);
    for (const [name, value] of Object.entries(await o.auth())) {
      try {
        headers.set(name, value);
      } catch {
        // Headers' own message quotes the value, which here is a secret.
        throw new TypeError(`the credential cannot be sent: its ${name} header holds a character no header may carry`);
      }
    }
    try {
      const res = await o.fetch(new Request(url, { method, headers, body }));
      // Read here so that a connection dropped mid-body counts as a network failure, not a bad answer.
      const text = await res.text();
      return { ok: true, status: res.status, headers: res.headers, text };
    } catch (error) {
      return { ok: false, error };
    }
  }
}

/**
 * Every page of a list through `list` (a derived method such as `client.users.list` bound to its path), in cursor
 * mode: the first with `query`'s filters (`limit` 100 unless given; `page`/`per_page` dropped), the next with the
 * cursor, which carries them; `every` (what shapes the records, such as `expand`) goes with each. Falls back to page
 * numbers if the server answers in offset mode.
 */
export async function* pages<T, Q extends object>(
  list: (query: Q) => Promise<List<T>>,
  query: NoInfer<Partial<Q>>,
  every: NoInfer<Partial<Q>> = {},
): AsyncGenerator<T[]> {
  const { page: _page, per_page: _perPage, ...filters } = query as Query;
  const limit = filters.limit ?? PER_PAGE_MAX;
  let next = { ...filters, ...every, limit } as unknown as Q;
  for (;;) {
    const { data, pagination } = await list(next);
    yield data;
    if (!pagination?.hasMore) return;
    if ('nextCursor' in pagination) {
      if (!pagination.nextCursor) return;
      // The cursor carries the filters and sort; sending only it continues the same listing.
      next = { ...every, cursor: pagination.nextCursor, limit } as unknown as Q;
    } else {
      const { limit: _limit, cursor: _cursor, ...rest } = filters;
      next = { ...rest, ...every, page: pagination.page + 1, per_page: pagination.perPage } as unknown as Q;
    }
  }
}

function networkError(method: string, url: string, cause: unknown, code: string | undefined, retries: number) {
  const origin = new URL(url).origin;
  const reason = code ?? (cause instanceof Error ? cause.message : 'unknown error');
  const tries = retries > 0 ? ` after ${retries} ${retries === 1 ? 'retry' : 'retries'}` : '';
  return new NetworkError(`${method} ${origin} failed (${reason})${tries}`, { cause, retries, errno: code });
}
