import type { RouteDef } from './route.js';

/** A route of the table with the whole path it answers at (`/v2/users/{userId}`). */
export interface Mounted {
  route: RouteDef;
  path: string;
}

/** What a request's method and path find: its route and parameters, or the methods the path allows, or nothing. */
export type Found = { route: RouteDef; params: Record<string, string> } | { allow: string[] } | undefined;

/** A route compiled for matching: its segments, a parameter's name where one stands. */
interface Compiled {
  route: RouteDef;
  /** Each segment: the literal text, or `{ name }` for a parameter. */
  segments: (string | { name: string })[];
}

/** A segment decoded (`%20` → ` `); one whose escapes are malformed is kept as sent. */
function decoded(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Compiles the table into a matcher, once: routes are grouped by their number of segments and their first two (every
 * route's first two are literal: `/v2/users`), so a request compares itself with a handful of routes, in the table's
 * order. A request's path is split at `/` and each segment decoded before it is compared, so `%2F` stays inside a
 * parameter; a trailing slash is the path without it; `HEAD` finds the `GET` route.
 */
export function compileMatcher(table: readonly Mounted[]): (method: string, path: string) => Found {
  const groups = new Map<string, Compiled[]>();
  for (const { route, path } of table) {
    const parts = path.split('/');
    const segments = parts.map((part) => {
      const m = /^\{([^}]+)\}$/.exec(part);
      return m ? { name: m[1] as string } : part;
    });
    if (typeof segments[1] !== 'string' || (segments.length > 2 && typeof segments[2] !== 'string')) {
      throw new Error(`a route's first two segments must be literal: ${path}`);
    }
    const key = `${parts.length}/${parts[1]}/${parts[2] ?? ''}`;
    let group = groups.get(key);
    if (!group) {
      group = [];
      groups.set(key, group);
    }
    group.push({ route, segments });
  }

  return (method, rawPath) => {
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const parts = path.split('/').map(decoded);
    const group = groups.get(`${parts.length}/${parts[1]}/${parts[2] ?? ''}`);
    if (!group) return undefined;
    const wanted = method === 'HEAD' ? 'GET' : method;
    let allow: string[] | undefined;
    for (const c of group) {
      const params = paramsOf(c, parts);
      if (!params) continue;
      if (c.route.method === wanted) return { route: c.route, params };
      allow ??= [];
      if (!allow.includes(c.route.method)) allow.push(c.route.method);
    }
    return allow && { allow };
  };
}

/** The parameters of a route whose segments match the path's, or undefined (a parameter matches any non-empty one). */
function paramsOf(c: Compiled, parts: readonly string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  // The first two were compared by the group's key.
  for (let i = 3; i < parts.length; i++) {
    const want = c.segments[i] as string | { name: string };
    const got = parts[i] as string;
    if (typeof want === 'string') {
      if (want !== got) return undefined;
    } else {
      if (got === '') return undefined;
      params[want.name] = got;
    }
  }
  return params;
}
