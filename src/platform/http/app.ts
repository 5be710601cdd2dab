import { Hono } from 'hono';
import { LinearRouter } from 'hono/router/linear-router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import * as z from 'zod';
import type { ErrorBody } from '../../contract/errors.js';
import { ID_PREFIX } from '../../contract/ids.js';
import { actIn, actingOrgId, authenticate, type BearerVerifier } from '../auth/credentials.js';
import { metadataEndpoint, RFC8414_PATH } from '../auth/discovery.js';
import { randomBase62 } from '../clock.js';
import type { BaseCtx, Credential, Ctx, FetchBindings, Principal } from '../context.js';
import { errorParts, PlatformError } from '../errors.js';
import { type Limiter, rateLimits } from '../limits/index.js';
import { SecretKeyError } from '../store/secret-box.js';
import { requestBounds } from './bounds.js';
import { buildOpenApi } from './openapi.js';
import type { RouteDef } from './route.js';
import { parseBody, parseParams, parseQuery } from './validate.js';

/** What the HTTP layer needs from the platform a request is for. */
export interface AppDeps {
  makeBase(requestId: string): BaseCtx;
  /** A fresh request id (`req_…`), for a request that did not send a valid one. */
  requestId(): string;
  bearer?: BearerVerifier;
  /** Rate limits (contract §7); none when absent. */
  limiter?: Limiter;
  /** Where unexpected errors are reported (never to the client). */
  logger: (line: string) => void;
}

/** Hono's `env` of a request: the platform it is for, and the listener's bindings. */
export type AppBindings = FetchBindings & { platform: AppDeps };

type Env = { Bindings: AppBindings; Variables: { requestId: string; credential?: Credential } };

const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;
const noQuery = z.strictObject({});

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

/** The error envelope of the seed as a response, with the request id. */
export function errorResponse(err: PlatformError, requestId: string): Response {
  return new Response(JSON.stringify(errorBody(err, requestId)), {
    status: err.status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...err.headers },
  });
}

/**
 * Chooses the organization a request acts in: `X-Org-Id` when sent (`403` if the credential may not act there),
 * else the organization in the path (`404` if it may not), else the credential's own.
 */
async function principalFor(
  base: BaseCtx,
  credential: Credential,
  header: string | undefined,
  pathOrg: unknown,
): Promise<Principal> {
  const orgId = actingOrgId(credential, header, pathOrg);
  const principal = await actIn(base, credential, orgId);
  if (principal) return principal;
  if (orgId === credential.homeOrgId) {
    throw new PlatformError('authentication_failed', 'the credential belongs to a user who is no longer active');
  }
  if (header !== undefined) {
    throw new PlatformError('insufficient_permissions', `this credential cannot act in organization ${orgId}`);
  }
  throw new PlatformError('not_found', 'organization not found');
}

/**
 * The context of an operation by `principal`. Its `emit` writes through `this.stores`: called on the context a
 * transaction gives (a copy of this one with the transaction's stores), the event is written in that transaction.
 */
function withPrincipal(base: BaseCtx, principal: Principal): Ctx {
  const actor =
    principal.type === 'api_key'
      ? { type: 'api_key' as const, id: principal.keyId as string }
      : { type: 'user' as const, id: principal.userId };
  return {
    ...base,
    // The base's `tx` gives `fn` a copy of the context it is called on, with the transaction's stores: here a `Ctx`.
    tx: base.tx as Ctx['tx'],
    principal,
    async emit(type, target, data = {}, orgId = principal.orgId) {
      await this.stores.events.insert({
        id: this.ids('event'),
        type,
        organizationId: orgId,
        actor,
        target,
        requestId: this.requestId,
        createdAt: this.now(),
        data,
      });
    },
  };
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
  const app = new Hono<Env>({ router: matching === 'compiled' ? new RegExpRouter() : new LinearRouter() });
  const compiled = routes.map((r) => ({ route: r, ...compilePath(r.path) }));
  let openapi: string | undefined;

  app.use(async (c, next) => {
    const sent = c.req.header('x-request-id');
    c.set('requestId', sent && REQUEST_ID.test(sent) ? sent : c.env.platform.requestId());
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
    if (err instanceof PlatformError) return errorResponse(err, requestId);
    // A secret key problem is the operator's to fix, and its message says how: no stack to read through.
    const detail =
      err instanceof SecretKeyError ? err.message : err instanceof Error ? (err.stack ?? err.message) : err;
    c.env.platform.logger(`internal error (request ${requestId}): ${detail}`);
    return errorResponse(new PlatformError('internal_error', 'internal error'), requestId);
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

  app.get('/v2/openapi.json', (c) => {
    openapi ??= JSON.stringify(buildOpenApi(routes));
    return c.body(openapi, 200, { 'Content-Type': 'application/json' });
  });
  // The auth server's metadata where RFC 8414 §3.1 puts it for the issuer `{origin}/v2/auth`: outside /v2.
  app.get(RFC8414_PATH, (c) => metadataEndpoint(c.env.platform.makeBase(c.get('requestId')), c));

  for (const { route, hono } of compiled) {
    app.on(route.method, hono, async (c) => {
      const { platform } = c.env;
      const base = platform.makeBase(c.get('requestId'));
      if (route.kind === 'public') return route.handler(base, c);
      // The rate-limit middleware has usually authenticated already.
      const credential = c.get('credential') ?? (await authenticate(base, c.req.raw.headers, platform.bearer));
      const params = (route.params ? parseParams(c.req.param(), route.params) : {}) as Record<string, unknown>;
      const principal = await principalFor(base, credential, c.req.header('x-org-id'), params.orgId);
      const query = parseQuery(new URL(c.req.url), route.query ?? noQuery);
      const body = route.body ? await parseBody(c.req.raw, route.body) : undefined;
      const result = await route.handler(withPrincipal(base, principal), { params, query, body } as never);
      if (route.status === 204) return c.body(null, 204);
      if (route.location) {
        c.header('Location', `/v2${route.location(result as never, { params, query, body } as never)}`);
      }
      return c.json(result as object, route.status ?? 200);
    });
  }
  return app;
}
