// The direct path of `plat serve`: a GET to an authenticated route answered from node:http's own request, without the
// Web `Request` and `Response` that @hono/node-server builds around it nor Hono's dispatch — most of what such a
// request cost (`npm run bench -- server`). It runs what the Hono app runs (answer.ts: authentication, validation, the
// operation, the error envelope) and answers with the same status, headers and body. Whatever it does not take goes
// the whole way through the app: another method, a public route, a request target or Host that the adapter would
// rewrite or refuse, and every request while rate limits are on (their middleware lives in the app).
import { openapiDocument } from '../../contract/endpoints/meta.js';
import type { HeaderReader } from '../auth/credentials.js';
import type { PlatformError } from '../errors.js';
import { type ApiAnswer, type AppDeps, answerApi, failureOf, requestIdFor } from './answer.js';
import { errorBody, errorHeaders } from './app.js';
import { MAX_URL_BYTES } from './bounds.js';
import type { ApiRoute, RouteDef } from './route.js';

/** A request as node:http parsed it: what the direct path reads of it. */
export interface DirectRequest {
  method?: string;
  url?: string;
  /** Names and values in turn, as received. */
  rawHeaders: string[];
}

/** The direct path's answer, ready to write. */
export interface DirectReply {
  status: number;
  /** Name, value, name, value…: the headers the app's response carries, as @hono/node-server writes them. */
  headers: string[];
  /** None: nothing follows the headers. */
  body: string | null;
  requestId: string;
  /** The request's path, for the access log. */
  path: string;
}

/** Answers a request directly, or says (undefined) that it must go through the Hono app. */
export type DirectAnswerer = (deps: AppDeps, req: DirectRequest) => Promise<DirectReply> | undefined;

/**
 * The request targets taken: a path under `/v2/` and a query made only of characters that the URL parser leaves as
 * they are (no percent-escapes in the path, none of `'"<>#\` or spaces), so that the path and query read here are
 * the ones the app would read. Dot segments are refused below.
 */
const PLAIN_TARGET = /^(\/v2\/[\w\-.~!$&()*+,;=:@/]*)(?:\?([\w\-.~!$&()*+,;=:@/?%]*))?$/;

/**
 * The Hosts taken: those @hono/node-server accepts without parsing them (its `reValidHost`); it parses any other,
 * and refuses some.
 */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** What a GET route's match leads to: the route, and its parameters' names with the groups that capture them. */
interface Target {
  route: RouteDef;
  params: { name: string; group: number }[];
}

const answerers = new WeakMap<readonly RouteDef[], DirectAnswerer>();

/** The direct path over a route table, made once per table (like its Hono app, app.ts). */
export function directAnswerer(routes: readonly RouteDef[]): DirectAnswerer {
  let answerer = answerers.get(routes);
  if (!answerer) {
    answerer = createDirectAnswerer(routes);
    answerers.set(routes, answerer);
  }
  return answerer;
}

function createDirectAnswerer(routes: readonly RouteDef[]): DirectAnswerer {
  const match = getMatcher(routes);
  return (deps, req) => {
    if (deps.limiter || req.method !== 'GET') return undefined;
    const target = PLAIN_TARGET.exec(req.url ?? '');
    if (!target || (req.url as string).length > MAX_URL_BYTES) return undefined;
    const path = target[1] as string;
    if (path.includes('/.') || !plainHost(req.rawHeaders)) return undefined;
    const found = match(path);
    if (!found) return undefined;
    return answer(deps, found.route, found.params, target[2] ?? '', req.rawHeaders, path);
  };
}

async function answer(
  deps: AppDeps,
  route: ApiRoute,
  params: Record<string, string>,
  search: string,
  rawHeaders: string[],
  path: string,
): Promise<DirectReply> {
  const headers = rawHeaderReader(rawHeaders);
  const requestId = requestIdFor(headers.get('x-request-id'), deps);
  try {
    const answer = await answerApi(route, deps, requestId, { headers, params, query: new URLSearchParams(search) });
    return replyOf(answer, requestId, path);
  } catch (err) {
    return errorReply(failureOf(err, requestId, deps.logger), requestId, path);
  }
}

/**
 * Finds the route of a GET path as Hono's router would: the first of the table, in its order, whose pattern matches
 * the whole path (`{name}` matching one segment). Only an authenticated route without a body is returned.
 */
function getMatcher(routes: readonly RouteDef[]) {
  // One regular expression of every GET route, each alternative closed by an empty group marking which one matched
  // (the trick of Hono's RegExpRouter): the first alternative that matches is the first route of the table.
  const targets = new Map<number, Target>();
  let group = 1;
  const alternatives = routes
    .filter((route) => route.method === 'GET')
    .map((route) => {
      const params: Target['params'] = [];
      // `/teams/{teamId}/members` → ['/teams/', 'teamId', '/members']: text and names in turn.
      const parts = `/v2${route.path}`.split(/\{([^}]+)\}/);
      const pattern = parts
        .map((part, i) => {
          if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          params.push({ name: part, group: group++ });
          return '([^/]+)';
        })
        .join('');
      targets.set(group++, { route, params });
      return `${pattern}()`;
    });
  const all = new RegExp(`^(?:${alternatives.join('|')})$`);
  return (path: string): { route: ApiRoute; params: Record<string, string> } | undefined => {
    // The app's own document is registered ahead of the table.
    if (path === `/v2${openapiDocument.path}`) return undefined;
    const m = all.exec(path);
    if (!m) return undefined;
    const target = targets.get(m.indexOf('', 1));
    if (!target || target.route.kind !== 'api' || target.route.body) return undefined;
    const params: Record<string, string> = {};
    for (const p of target.params) params[p.name] = m[p.group] as string;
    return { route: target.route, params };
  };
}

/** Whether the request has one `Host`, of a form @hono/node-server takes as it is. */
function plainHost(rawHeaders: string[]): boolean {
  let host: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (host !== undefined) return false;
      host = rawHeaders[i + 1] as string;
    }
  }
  return host !== undefined && PLAIN_HOST.test(host);
}

/**
 * The request's headers as the Web `Headers` reads them: any case of the name, repeated headers joined with ", ",
 * spaces and tabs around a value dropped (node's parser refuses the characters `Headers` would).
 */
function rawHeaderReader(rawHeaders: string[]): HeaderReader {
  return {
    get(name) {
      const lower = name.toLowerCase();
      let value: string | null = null;
      for (let i = 0; i < rawHeaders.length; i += 2) {
        const raw = rawHeaders[i] as string;
        if (raw.length === lower.length && raw.toLowerCase() === lower) {
          const v = trimmed(rawHeaders[i + 1] as string);
          value = value === null ? v : `${value}, ${v}`;
        }
      }
      return value;
    },
  };
}

const HTTP_SPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const isHttpSpace = (c: number) => c === 9 || c === 10 || c === 13 || c === 32;

/** A header's value without the HTTP whitespace around it (as `Headers` keeps it). */
function trimmed(value: string): string {
  if (value === '' || (!isHttpSpace(value.charCodeAt(0)) && !isHttpSpace(value.charCodeAt(value.length - 1)))) {
    return value;
  }
  return value.replace(HTTP_SPACE, '');
}

/**
 * An API route's answer as the app sends it (`c.json`, or no body with `204`), its headers as @hono/node-server writes
 * a Web `Headers`: names in lower case, in order, then the length it adds.
 */
function replyOf(answer: ApiAnswer, requestId: string, path: string): DirectReply {
  const { status } = answer;
  if (status === 204) return { status, headers: ['x-request-id', requestId], body: null, requestId, path };
  const headers = ['content-type', 'application/json'];
  if (answer.location !== undefined) headers.push('location', answer.location);
  headers.push('x-request-id', requestId);
  const body = JSON.stringify(answer.result) as string | undefined;
  if (body === undefined) return { status, headers, body: null, requestId, path };
  headers.push('Content-Length', String(Buffer.byteLength(body)));
  return { status, headers, body, requestId, path };
}

/** The error envelope as the app sends it (`errorResponse`), its headers as @hono/node-server writes them. */
function errorReply(err: PlatformError, requestId: string, path: string): DirectReply {
  const body = JSON.stringify(errorBody(err, requestId));
  const headers: string[] = [];
  for (const [name, value] of new Headers(errorHeaders(err, requestId))) headers.push(name, value);
  headers.push('Content-Length', String(Buffer.byteLength(body)));
  return { status: err.status, headers, body, requestId, path };
}
