import { Hono } from 'hono';
import { LinearRouter } from 'hono/router/linear-router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { openapiDocument } from '../../contract/endpoints/meta.js';
import type { ErrorBody } from '../../contract/errors.js';
import { ID_PREFIX } from '../../contract/ids.js';
import { metadataEndpoint, RFC8414_PATH } from '../auth/discovery.js';
import { randomBase62 } from '../clock.js';
import type { Credential, FetchBindings } from '../context.js';
import { errorParts, PlatformError } from '../errors.js';
import { rateLimits } from '../limits/index.js';
import { type AppDeps, answerApi, failureOf, requestIdFor } from './answer.js';
import { requestBounds } from './bounds.js';
import { buildOpenApi } from './openapi.js';
import type { RouteDef } from './route.js';

export type { AppDeps } from './answer.js';

/** Hono's `env` of a request: the platform it is for, and the listener's bindings. */
export type AppBindings = FetchBindings & { platform: AppDeps };

type Env = { Bindings: AppBindings; Variables: { requestId: string; credential?: Credential } };

/** A fresh request id (`req_…`), for a request that did not send a valid one of its own. */
export function newRequestId(): string {
  return `${ID_PREFIX.request}_${randomBase62(20)}`;
}

/** The error envelope of the seed, with the request id. */
export function errorBody(err: PlatformError, requestId: string): ErrorBody {
  return {
    error: { ...errorParts(err), status: err.status, requestId },
  };
}

/** The headers of an error response. */
export function errorHeaders(err: PlatformError, requestId: string): Record<string, string> {
  return { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...err.headers };
}

/** The error envelope of the seed as a response, with the request id. */
export function errorResponse(err: PlatformError, requestId: string): Response {
  return new Response(JSON.stringify(errorBody(err, requestId)), {
    status: err.status,
    headers: errorHeaders(err, requestId),
  });
}

/**
 * `/organizations/{orgId}` → a regular expression matching concrete paths (capturing `orgId` as a named group), and
 * Hono's `:orgId` form.
 */
function compilePath(path: string): { regex: RegExp; hono: string } {
  return {
    regex: new RegExp(
      `^/v2${path.replace(/\{([^}]+)\}/g, (_, name) => (name === 'orgId' ? '(?<orgId>[^/]+)' : '[^/]+'))}/?$`,
    ),
    hono: `/v2${path.replace(/\{([^}]+)\}/g, ':$1')}`,
  };
}

/**
 * How a request finds its route: `linear` tries each route in turn and builds nothing ahead (a command answers one
 * request), `compiled` builds one regular expression of them all on first use (a server answers many: a third more
 * requests a second on `GET /users/{id}`, `npm run bench -- server`).
 */
export type RouteMatching = 'linear' | 'compiled';

const apps = new WeakMap<readonly RouteDef[], Map<RouteMatching, Hono<Env>>>();

/**
 * The Hono application of a route table, made once: it holds nothing of a platform's own (each request brings its
 * platform in `env`), so every platform over the same table shares it, and a process that made one has it ready.
 */
export function appFor(routes: readonly RouteDef[], matching: RouteMatching = 'linear'): Hono<Env> {
  let made = apps.get(routes);
  if (!made) {
    made = new Map();
    apps.set(routes, made);
  }
  let app = made.get(matching);
  if (!app) {
    app = createApp(routes, matching);
    made.set(matching, app);
  }
  return app;
}

/**
 * The platform's Hono application: every route of the table, plus the conventions of contract §1–§3. A request is
 * answered with `app.fetch(request, { platform, ...bindings })`.
 */
export function createApp(routes: readonly RouteDef[], matching: RouteMatching = 'linear'): Hono<Env> {
  // Not strict: a path with a trailing slash is the path without it, whichever router (compilePath's patterns, which
  // the 405 answer and the rate limits use, take it too).
  const app = new Hono<Env>({
    strict: false,
    router: matching === 'compiled' ? new RegExpRouter() : new LinearRouter(),
  });
  const compiled = routes.map((r) => ({ route: r, ...compilePath(r.path) }));
  let openapi: string | undefined;

  app.use(async (c, next) => {
    c.set('requestId', requestIdFor(c.req.header('x-request-id'), c.env.platform));
    await next();
    c.res.headers.set('X-Request-Id', c.get('requestId'));
  });
  // Before anything reads the body (the rate limits read an OAuth request's to find its client).
  app.use(requestBounds());

  const apiRoute = (method: string, path: string) =>
    compiled.find((r) => r.route.kind === 'api' && r.route.method === method && r.regex.test(path));
  app.use(
    rateLimits({
      needsCredentials: (method, path) => apiRoute(method, path) !== undefined,
      pathOrgId: (method, path) => apiRoute(method, path)?.regex.exec(path)?.groups?.orgId,
    }),
  );

  app.onError((err, c) => {
    const requestId = c.get('requestId');
    return errorResponse(failureOf(err, requestId, c.env.platform.logger), requestId);
  });

  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const allowed = [...new Set(compiled.filter((r) => r.regex.test(path)).map((r) => r.route.method))];
    if (allowed.length > 0) {
      return errorResponse(
        new PlatformError(
          'invalid_request',
          `method ${c.req.method} not allowed here; allowed: ${allowed.join(', ')}`,
          {
            status: 405,
            headers: { Allow: allowed.join(', ') },
          },
        ),
        c.get('requestId'),
      );
    }
    return errorResponse(new PlatformError('not_found', `no route ${c.req.method} ${path}`), c.get('requestId'));
  });

  app.get(`/v2${openapiDocument.path}`, (c) => {
    openapi ??= JSON.stringify(buildOpenApi(routes));
    return c.body(openapi, 200, { 'Content-Type': 'application/json' });
  });
  // The auth server's metadata where RFC 8414 §3.1 puts it for the issuer `{origin}/v2/auth`: outside /v2.
  app.get(RFC8414_PATH, (c) => metadataEndpoint(c.env.platform.makeBase(c.get('requestId')), c));

  for (const { route, hono } of compiled) {
    app.on(route.method, hono, async (c) => {
      const { platform } = c.env;
      if (route.kind === 'public') return route.handler(platform.makeBase(c.get('requestId')), c);
      const answer = await answerApi(route, platform, c.get('requestId'), {
        headers: c.req.raw.headers,
        params: c.req.param(),
        query: new URL(c.req.url).searchParams,
        raw: c.req.raw,
        // The rate-limit middleware has usually authenticated already.
        credential: c.get('credential'),
      });
      if (answer.status === 204) return c.body(null, 204);
      if (answer.location) c.header('Location', answer.location);
      return c.json(answer.result as object, answer.status as 200);
    });
  }
  return app;
}
