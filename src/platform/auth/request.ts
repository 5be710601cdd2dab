import type { Context } from 'hono';
import type { FetchBindings } from '../context.js';
import { MAX_JSON_DEPTH, nestsTooDeep } from '../http/json.js';
import { OAuthError } from './oauth-error.js';

/** The peer address of the connection (node-server's `incoming` binding), or null in-process. Proxies are not trusted. */
export function clientAddress(c: Context): string | null {
  const env = c.env as FetchBindings | undefined;
  return env?.incoming?.socket?.remoteAddress ?? null;
}

/** The request's User-Agent, bounded. */
export function userAgent(c: Context): string | null {
  return c.req.header('user-agent')?.slice(0, 512) ?? null;
}

/** Parameters of an OAuth request: each at most once (RFC 6749 §3.1); `repeated` names the first that was not. */
export interface Params {
  get(name: string): string | undefined;
  repeated: string | undefined;
}

function fromEntries(entries: Iterable<[string, string]>): Params {
  const map = new Map<string, string>();
  let repeated: string | undefined;
  for (const [k, v] of entries) {
    if (map.has(k)) repeated ??= k;
    map.set(k, v);
  }
  return { get: (name) => map.get(name), repeated };
}

/** The query string's parameters. */
export function queryParams(c: Context): Params {
  return fromEntries(new URL(c.req.url).searchParams);
}

/** Sign-in forms and OAuth requests are small; anything bigger is refused unread. */
const MAX_BODY = 64 * 1024;

/**
 * A form-encoded body (or, where `json` is allowed, a JSON object of strings). Read through Hono's cached body, so a
 * middleware may have read it first. Undefined when the body is neither, or larger than 64 KiB; JSON nested deeper
 * than the API allows is an OAuth `invalid_request` (only the OAuth endpoints accept JSON here).
 */
export async function bodyParams(c: Context, opts: { json?: boolean } = {}): Promise<Params | undefined> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  const form = type.startsWith('application/x-www-form-urlencoded');
  const json = opts.json === true && /^application\/json\s*(;|$)/.test(type);
  if ((!form && !json) || Number(c.req.header('content-length') ?? 0) > MAX_BODY) return undefined;
  const text = await c.req.text();
  if (text.length > MAX_BODY) return undefined;
  if (form) return fromEntries(new URLSearchParams(text));
  if (nestsTooDeep(text)) {
    throw new OAuthError('invalid_request', `the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  return fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
