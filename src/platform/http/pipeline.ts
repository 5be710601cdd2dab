// The one request pipeline (docs/architecture.md): every request, whatever carried it — `plat serve`'s node:http
// listener (server.ts) or the in-process `fetch` (fetch.ts) — takes these steps, once each, in this order:
//
//   match → request id → bounds → authenticate → acting organization → rate limit → permission → validate →
//   operation → encode
//
// Everything about an endpoint (path, method, permission and its scope, limit policy, `Location`, whether its answer
// holds a secret) is read from its declaration in src/contract/endpoints/; nothing here or in the operations spells
// it again.
import * as z from 'zod';
import { apiPath, type Endpoint, pathNames } from '../../contract/endpoint.js';
import { openapiDocument } from '../../contract/endpoints/meta.js';
import { ANONYMOUS_LIMIT, SCIM_LIMIT } from '../../contract/limits.js';
import type { Plan } from '../../contract/organizations.js';
import { authenticate, type BearerVerifier } from '../auth/credentials.js';
import { metadataEndpoint, RFC8414_PATH } from '../auth/discovery.js';
import type { BaseCtx, Credential, Principal } from '../context.js';
import { notFound, PlatformError } from '../errors.js';
import type { LimitState } from '../limits/bucket.js';
import { addressKey } from '../limits/keys.js';
import type { Limiter } from '../limits/limiter.js';
import { scimBody } from '../scim/body.js';
import { scimPrincipal } from '../scim/credential.js';
import { asScimError, isCodedError, ScimError, scimErrorBody } from '../scim/errors.js';
import { SecretKeyError } from '../store/secret-box.js';
import { principalFor, withPrincipal } from './acting.js';
import { bodyText, type Incoming, MAX_BODY_BYTES, MAX_URL_BYTES, tooLarge } from './incoming.js';
import {
  chargeAddress,
  credentialAlias,
  credentialRefusal,
  publicLimit,
  refused,
  rememberedRefusal,
  showLimits,
  spendCredential,
} from './limit-step.js';
import { compileMatcher, type Mounted } from './match.js';
import { buildOpenApi } from './openapi.js';
import { PageCall, type RequestLimits } from './page.js';
import { permit, requireProjectRole } from './permit.js';
import { EVENT_STREAM_HEADERS, errorReply, jsonReply, REQUEST_ID, type Reply, setHeader } from './reply.js';
import type { ApiRoute, PublicRoute, RouteDef, ScimRoute } from './route.js';
import { parseBody, parseParams, parseQuery } from './validate.js';

/** What the pipeline needs from the platform a request is for. */
export interface AppDeps {
  makeBase(requestId: string): BaseCtx;
  /** A fresh request id (`req_…`), for a request that did not send a valid one. */
  requestId(): string;
  bearer?: BearerVerifier;
  /** Rate limits (docs/rate-limits.md); none when absent. */
  limiter?: Limiter;
  /** Where unexpected errors are reported (never to the client). */
  logger: (line: string) => void;
}

/** Answers one request. */
export type Pipeline = (deps: AppDeps, req: Incoming) => Promise<Reply>;

const pipelines = new WeakMap<readonly RouteDef[], Pipeline>();

/**
 * The pipeline over a route table, made once: it holds nothing of a platform's own (each request brings its platform's
 * `AppDeps`), so every platform over the same table shares it.
 */
export function pipelineFor(routes: readonly RouteDef[]): Pipeline {
  let pipeline = pipelines.get(routes);
  if (!pipeline) {
    pipeline = createPipeline(routes);
    pipelines.set(routes, pipeline);
  }
  return pipeline;
}

/**
 * What a request that failed is answered with: a `PlatformError` as it is, anything else `500 internal_error` (reported
 * to the logger with its stack, never to the client).
 */
export function failureOf(err: unknown, requestId: string, logger: (line: string) => void): PlatformError {
  if (err instanceof PlatformError) return err;
  // A secret key problem is the operator's to fix, and its message says how: no stack to read through.
  const detail = err instanceof SecretKeyError ? err.message : err instanceof Error ? (err.stack ?? err.message) : err;
  logger(`internal error (request ${requestId}): ${detail}`);
  return new PlatformError('internal_error', 'internal error');
}

/** The routes the table does not declare: the OpenAPI document made from it, and RFC 8414's metadata address. */
function ownRoutes(routes: readonly RouteDef[]): Mounted[] {
  let openapi: string | undefined;
  const document: PublicRoute = {
    ...openapiDocument,
    kind: 'public',
    handler: (_ctx, c) => {
      openapi ??= JSON.stringify(buildOpenApi(routes));
      return c.body(openapi, 200, { 'Content-Type': 'application/json' });
    },
  };
  const metadata = routes.find((r) => r.operationId === 'getAuthServerMetadata') as PublicRoute;
  return [
    { route: document, path: apiPath(document) },
    // The auth server's metadata where RFC 8414 §3.1 puts it for the issuer `{origin}/v2/auth`: outside the API's base.
    { route: { ...metadata, handler: metadataEndpoint }, path: RFC8414_PATH },
  ];
}

/**
 * The principal of a request: the credential acting where `X-Org-Id` (not empty), else the path's organization, else
 * its own says — `403`/`404` where it may not; a path naming another organization than the one acted in is `404`.
 */
async function actingPrincipal(
  base: BaseCtx,
  credential: Credential,
  header: string | null,
  pathOrgId: string | undefined,
): Promise<Principal> {
  if (header === '') throw new PlatformError('invalid_request', 'X-Org-Id is empty: send an organization id');
  const principal = await principalFor(base, credential, header ?? undefined, pathOrgId);
  if (pathOrgId !== undefined && pathOrgId !== principal.orgId) throw notFound('organization');
  return principal;
}

/** The plan of a credential's own organization: read with an API key, else read now (a rare path: a refusal). */
async function homePlan(base: BaseCtx, credential: Credential): Promise<Plan> {
  return credential.homeStanding?.plan ?? (await base.stores.organizations.get(credential.homeOrgId))?.plan ?? 'free';
}

/** An answer in SCIM's media type. */
function scimReply(status: number, value: unknown): Reply {
  if (value === undefined) return { status, headers: [], body: null };
  return { status, headers: ['content-type', 'application/scim+json'], body: JSON.stringify(value) };
}

/** An API route's `Location` (`/v2/…`) from its result and parameters, as its declaration says. */
type LocationFn = (result: unknown, params: Record<string, unknown>) => string;

/** Compiles each declared `Location` against the GET it names (a declaration naming no GET fails at once). */
function locations(routes: readonly RouteDef[]): Map<RouteDef, LocationFn> {
  const byId = new Map<string, Endpoint>(routes.map((r) => [r.operationId, r]));
  const out = new Map<RouteDef, LocationFn>();
  for (const route of routes) {
    if (!route.location) continue;
    const target = byId.get(route.location.get);
    if (!target || target.method !== 'GET') throw new Error(`${route.operationId}: Location names no GET`);
    const from = route.location.from ?? {};
    const sources = pathNames(target.path).map((name, _i, all) => {
      const source = from[name] ?? (all.length === 1 ? 'id' : undefined);
      if (!source) throw new Error(`${route.operationId}: Location gives no value for {${name}}`);
      const [root, ...rest] = source.split('.');
      return root === 'params' ? { params: true, path: rest } : { params: false, path: [root as string, ...rest] };
    });
    out.set(route, (result, params) => {
      const values = sources.map(({ params: fromParams, path }) => {
        let v: unknown = fromParams ? params : result;
        for (const key of path) v = (v as Record<string, unknown> | undefined)?.[key];
        return String(v);
      });
      return apiPath(target, ...values);
    });
  }
  return out;
}

const noQuery = z.strictObject({});

function createPipeline(routes: readonly RouteDef[]): Pipeline {
  const match = compileMatcher([...routes.map((route) => ({ route, path: apiPath(route) })), ...ownRoutes(routes)]);
  const locationOf = locations(routes);
  // A public route answers with headers of its own (its `answers` say which): `secret` is the pipeline's to apply.
  for (const route of routes) {
    if (route.secret && route.kind !== 'api')
      throw new Error(`${route.operationId}: secret is for authenticated routes`);
    // A SCIM route spends its organization's SCIM bucket (`scim`) or none: no other bucket is keyed for it.
    if (route.kind === 'scim' && route.limit !== 'scim' && route.limit !== 'none')
      throw new Error(`${route.operationId}: a SCIM route's limit is scim or none`);
  }

  /** The steps after the request id: match, bounds, then the route's kind of answer. */
  const route = async (deps: AppDeps, req: Incoming, requestId: string): Promise<Reply> => {
    if (req.path.length + (req.query ? req.query.length + 1 : 0) > MAX_URL_BYTES) {
      throw new PlatformError('invalid_request', `URL too long (limit ${MAX_URL_BYTES / 1024} KiB)`, { status: 414 });
    }
    const found = match(req.method, req.path);
    if (!found) throw new PlatformError('not_found', `no route ${req.method} ${req.path}`);
    if ('allow' in found) {
      const allowed = found.allow.join(', ');
      throw new PlatformError('invalid_request', `method ${req.method} not allowed here; allowed: ${allowed}`, {
        status: 405,
        headers: { Allow: allowed },
      });
    }
    // Bounds: a body announced over the limit is refused unread; any other is read here, up to the limit, before
    // anything else is done for the request (no route reads the body of a GET or HEAD).
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (Number(req.header('content-length') ?? 0) > MAX_BODY_BYTES) throw tooLarge();
      await req.body();
    }
    const { route } = found;
    if (route.kind === 'api') return api(route, found.params, deps, req, requestId);
    if (route.kind === 'scim') return scim(route, found.params, deps, req, requestId);
    return page(route, found.params, deps, req, requestId);
  };

  /**
   * A SCIM route (docs/scim.md): authenticate by the organization's SCIM token (failures charged to the address), its
   * SCIM bucket, then the handler; answers and errors in SCIM's own form.
   */
  const scim = async (
    route: ScimRoute,
    params: Record<string, string>,
    deps: AppDeps,
    req: Incoming,
    requestId: string,
  ): Promise<Reply> => {
    const { limiter } = deps;
    const base = deps.makeBase(requestId);
    let limits: LimitState | undefined;
    let principal: Principal | undefined;
    try {
      const orgId = params.orgId as string;
      try {
        principal = await scimPrincipal(base, req.header('authorization'), orgId);
      } catch (err) {
        if (limiter && err instanceof ScimError && err.status === 401) {
          limits = await chargeAddress(limiter, req.peer ?? 'local');
          if (!limits.allowed) throw new ScimError(429, undefined, refused(limits, 'too many failed attempts').message);
        }
        throw err;
      }
      if (limiter && route.limit === 'scim') {
        limits = await limiter.spend(`scim:${orgId}`, SCIM_LIMIT);
        if (!limits.allowed) {
          throw new ScimError(429, undefined, refused(limits, "the organization's SCIM rate limit is reached").message);
        }
      }
      const body = scimBody(await bodyText(req));
      const result = await route.handler(withPrincipal(base, principal), {
        params,
        query: new URLSearchParams(req.query),
        body,
      });
      const status = req.method === 'DELETE' ? 204 : req.method === 'POST' ? 201 : 200;
      // Counted for `plat scim status`, best effort: what the request did is done, whatever befalls the count.
      await base.stores.scim.recordRequest(principal.keyId as string, base.now()).catch(() => {});
      const reply = scimReply(status, status === 204 ? undefined : result);
      if (status === 201) reply.headers.push('location', (result as { meta: { location: string } }).meta.location);
      if (limits) showLimits(reply, limits);
      return reply;
    } catch (err) {
      const failure = isCodedError(err) ? asScimError(err) : failureOf(err, requestId, deps.logger);
      const [status, scimType, detail] =
        failure instanceof ScimError
          ? [failure.status, failure.scimType, failure.message]
          : [500, undefined, 'internal error'];
      // What the token's identity provider was refused, for `plat scim status` (a stranger's refusals write nothing).
      if (principal) {
        const at = base.now();
        const failed = { at, method: req.method, path: req.path, status, scimType: scimType ?? null, detail };
        await base.stores.scim.recordRequest(principal.keyId as string, at, failed).catch(() => {});
      }
      const reply = scimReply(status, scimErrorBody(status, scimType, detail));
      if (limits) showLimits(reply, limits);
      if (limits?.retryAfter !== undefined && reply.status === 429)
        setHeader(reply, 'retry-after', String(limits.retryAfter));
      return reply;
    }
  };

  /** An authenticated route: every step of the pipeline. */
  const api = async (
    route: ApiRoute,
    rawParams: Record<string, string>,
    deps: AppDeps,
    req: Incoming,
    requestId: string,
  ): Promise<Reply> => {
    const { limiter } = deps;
    // A credential its bucket refused a moment ago — or a missing or invalid one its address's failure budget refused
    // — is refused again from memory, before anything is read for it: a flood costs the server the least it can
    // (docs/rate-limits.md, "What a request pays").
    const early = limiter && rememberedRefusal(limiter, req, rawParams.orgId, route.limit, requestId);
    if (early) return early;
    const base = deps.makeBase(requestId);
    let limits: LimitState | undefined;
    try {
      // Authenticate: a missing or invalid credential is charged to the address (429 once it has no failures left).
      let credential: Awaited<ReturnType<typeof authenticate>>;
      try {
        credential = await authenticate(base, req.header, deps.bearer);
      } catch (err) {
        if (limiter && err instanceof PlatformError && err.status === 401) {
          limits = await chargeAddress(limiter, req.peer ?? 'local', req);
        }
        throw err;
      }
      // The acting organization: `X-Org-Id`, else the path's, else the credential's own.
      let principal: Principal | undefined;
      let refused: unknown;
      try {
        principal = await actingPrincipal(base, credential, req.header('x-org-id'), rawParams.orgId);
      } catch (err) {
        refused = err;
      }
      // The rate limit: the credential's bucket where it acts — or, where it may not act (refused above), in its own
      // organization, so that naming strangers' organizations opens no buckets; a valid credential spends one either
      // way, whatever it is answered.
      if (limiter) {
        const orgId = principal?.orgId ?? credential.homeOrgId;
        const plan = principal?.plan ?? (await homePlan(base, credential));
        const spent = await spendCredential(limiter, route.limit, principal ?? credential, orgId, plan);
        limits = spent.state;
        if (!limits.allowed) {
          if (principal) limiter.remember(credentialAlias(req, rawParams.orgId, route.limit), spent.key);
          return credentialRefusal(limits, route.limit, req.path, requestId);
        }
      }
      if (!principal) throw refused;
      const ctx = withPrincipal(base, principal);
      const inProject = permit(route, principal, rawParams);
      if (inProject) await requireProjectRole(ctx, rawParams.projectId as string, inProject);
      const params = (route.params ? parseParams(rawParams, route.params) : {}) as Record<string, unknown>;
      // No query sent and none declared: nothing to parse.
      const query = route.query || req.query ? parseQuery(new URLSearchParams(req.query), route.query ?? noQuery) : {};
      const body = route.body ? parseBody(await bodyText(req), req.header('content-type'), route.body) : undefined;
      const input = { params, query, body, header: req.header };
      const result = await route.handler(ctx, input as never);
      const status = route.status ?? 200;
      const reply: Reply = route.stream
        ? { status, headers: [...EVENT_STREAM_HEADERS], body: result as ReadableStream<Uint8Array> }
        : status === 204
          ? { status, headers: [], body: null }
          : jsonReply(status, result);
      const location = locationOf.get(route);
      if (location) reply.headers.push('location', location(result, params));
      if (route.secret) setHeader(reply, 'cache-control', 'no-store');
      if (limits) showLimits(reply, limits);
      return reply;
    } catch (err) {
      if (!limits) throw err;
      const reply = errorReply(failureOf(err, requestId, deps.logger), requestId);
      showLimits(reply, limits);
      return reply;
    }
  };

  /** A public route: its limit policy, then its handler, which answers itself. */
  const page = async (
    route: PublicRoute,
    params: Record<string, string>,
    deps: AppDeps,
    req: Incoming,
    requestId: string,
  ): Promise<Reply> => {
    const { limiter } = deps;
    const ip = req.peer ?? 'local';
    const handle: RequestLimits | undefined = limiter && { limiter, ip };
    let spent: LimitState | undefined;
    if (limiter && route.limit && route.limit !== 'none') {
      const step = await publicLimit(limiter, route.limit, req, ip, requestId);
      if (step?.refusal) return step.refusal;
      spent = step?.state;
    }
    const call = new PageCall(req, params, handle);
    let reply: Reply;
    try {
      reply = call.finish(await route.handler(deps.makeBase(requestId), call));
    } catch (err) {
      if (!spent && !handle?.state) throw err;
      reply = errorReply(failureOf(err, requestId, deps.logger), requestId);
    }
    // An identity provider's answer that was refused spends the address's failure budget.
    if (handle && route.limit === 'identity-provider' && reply.status >= 400) {
      spent = await handle.limiter.spend(addressKey(ip), ANONYMOUS_LIMIT);
    }
    const shown = route.limit === 'identity-provider' ? spent : (spent ?? handle?.state);
    if (shown) showLimits(reply, shown);
    return reply;
  };

  return async (deps, req) => {
    const sent = req.header('x-request-id');
    const requestId = sent !== null && REQUEST_ID.test(sent) ? sent : deps.requestId();
    let reply: Reply;
    try {
      reply = await route(deps, req, requestId);
    } catch (err) {
      reply = errorReply(failureOf(err, requestId, deps.logger), requestId);
    }
    setHeader(reply, 'x-request-id', requestId);
    return reply;
  };
}
