// How an authenticated API route answers a request, whichever listener received it: the Hono application (app.ts),
// or the direct path of `plat serve` (direct.ts). Both run this, so they authenticate, validate and refuse alike.
import * as z from 'zod';
import { actIn, actingOrgId, authenticate, type BearerVerifier, type HeaderReader } from '../auth/credentials.js';
import type { BaseCtx, Credential, Ctx, Principal } from '../context.js';
import { PlatformError } from '../errors.js';
import type { Limiter } from '../limits/index.js';
import { SecretKeyError } from '../store/secret-box.js';
import type { ApiRoute } from './route.js';
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

/** A request id a client may send: 1–200 visible ASCII characters (anything else is replaced, not refused). */
export const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;
const noQuery = z.strictObject({});

/** The request's id: the `X-Request-Id` it sent when valid, else a fresh one. */
export function requestIdFor(sent: string | null | undefined, deps: AppDeps): string {
  return sent && REQUEST_ID.test(sent) ? sent : deps.requestId();
}

/** What an API route reads of a request. */
export interface ApiRequest {
  headers: HeaderReader;
  /** The path's parameters, decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The Web request, for a route that reads a body. */
  raw?: Request;
  /** The credential, when the rate limits have authenticated it already. */
  credential?: Credential;
}

/** An API route's answer: its status, its record (none with `204`), and where a created record lives. */
export interface ApiAnswer {
  status: number;
  result: unknown;
  /** The `Location` header's value. */
  location?: string;
}

/**
 * Answers an authenticated route: authenticates, validates the path, chooses the organization the request acts in,
 * validates the query and body, and runs the operation. Throws what the client is to be answered with.
 */
export async function answerApi(
  route: ApiRoute,
  deps: AppDeps,
  requestId: string,
  req: ApiRequest,
): Promise<ApiAnswer> {
  const base = deps.makeBase(requestId);
  const credential = req.credential ?? (await authenticate(base, req.headers, deps.bearer));
  const params = (route.params ? parseParams(req.params, route.params) : {}) as Record<string, unknown>;
  const principal = await principalFor(base, credential, req.headers.get('x-org-id') ?? undefined, params.orgId);
  const query = parseQuery(req.query, route.query ?? noQuery);
  const body = route.body ? await parseBody(req.raw as Request, route.body) : undefined;
  const input = { params, query, body } as never;
  const result = await route.handler(withPrincipal(base, principal), input);
  const status = route.status ?? 200;
  if (status === 204 || !route.location) return { status, result };
  return { status, result, location: `/v2${route.location(result as never, input)}` };
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
 * The context of an operation by `principal`, written out field by field (a spread of the base would cost a request
 * more than a read of the database).
 */
function withPrincipal(base: BaseCtx, principal: Principal): Ctx {
  const ctx: Required<Ctx> = {
    sql: base.sql,
    stores: base.stores,
    clock: base.clock,
    ids: base.ids,
    mode: base.mode,
    cursors: base.cursors,
    requestId: base.requestId,
    publicUrl: base.publicUrl,
    auth: base.auth,
    now: base.now,
    // The base's `tx` gives `fn` a copy of the context it is called on, with the transaction's stores: here a `Ctx`.
    tx: base.tx as Ctx['tx'],
    writes: base.writes,
    principal,
    emit,
  };
  return ctx;
}

/**
 * Records an audit event by the context's principal. It writes through `this.stores`: called on the context a
 * transaction gives (a copy of this one with the transaction's stores), the event is written in that transaction.
 */
async function emit(
  this: Ctx,
  type: string,
  target: { type: string; id: string } | null,
  data: Record<string, unknown> = {},
  orgId: string = this.principal.orgId,
): Promise<void> {
  const { principal } = this;
  await this.stores.events.insert({
    id: this.ids('event'),
    type,
    organizationId: orgId,
    actor:
      principal.type === 'api_key'
        ? { type: 'api_key', id: principal.keyId as string }
        : { type: 'user', id: principal.userId },
    target,
    requestId: this.requestId,
    createdAt: this.now(),
    data,
  });
}
