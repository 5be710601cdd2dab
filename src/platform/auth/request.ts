import { MAX_JSON_DEPTH, nestsTooDeep } from '../http/json.js';
import type { PageCall } from '../http/page.js';
import { OAuthError } from './oauth-error.js';

/** The peer address of the connection, or null in-process. Proxies are not trusted. */
export function clientAddress(c: PageCall): string | null {
  return c.peer;
}

/** The request's User-Agent, bounded. */
export function userAgent(c: PageCall): string | null {
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
export function queryParams(c: PageCall): Params {
  return fromEntries(new URLSearchParams(c.req.query));
}

/** Sign-in forms and OAuth requests are small; anything bigger is refused unread. */
const MAX_BODY = 64 * 1024;

/**
 * A form-encoded body (or, where `json` is allowed, a JSON object of strings). The body is read once and kept, so the
 * rate limit may have read it first. Undefined when the body is neither, or larger than 64 KiB; JSON nested deeper
 * than the API allows is an OAuth `invalid_request` (only the OAuth endpoints accept JSON here).
 */
export async function bodyParams(c: PageCall, opts: { json?: boolean } = {}): Promise<Params | undefined> {
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
