import type * as z from 'zod';
import type { CallResult, Endpoint, EndpointGroup } from '../../contract/endpoint.js';
import type { BaseCtx, Ctx } from '../context.js';
import type { PageCall } from './page.js';
import type { Reply } from './reply.js';

/** The parsed input of a route. */
export interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** A request header by its lower-case name (the event stream's `Last-Event-ID`), or null. */
  header: (name: string) => string | null;
}

/** An authenticated JSON route: the handler gets the principal's context and the validated input. */
export interface ApiRoute extends Endpoint {
  kind: 'api';
  handler: (ctx: Ctx, input: Input<never, never, never>) => unknown;
}
/** A public route: the handler gets the base context and its request (a `PageCall`), and answers itself. */
export interface PublicRoute extends Endpoint {
  kind: 'public';
  handler: (ctx: BaseCtx, c: PageCall) => Reply | Promise<Reply>;
}
/** What a SCIM route's handler gets of its request: the path's parameters, the query, the body as parsed JSON. */
export interface ScimInput {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}
/**
 * A SCIM endpoint (docs/scim.md): the handler gets the context of the organization's SCIM token and answers the
 * resource (nothing for a `DELETE`); the pipeline writes it as `application/scim+json`, errors in SCIM's schema.
 */
export interface ScimRoute extends Endpoint {
  kind: 'scim';
  handler: (ctx: Ctx, input: ScimInput) => Promise<unknown>;
}
/** An endpoint of the contract bound to the code that answers it. */
export type RouteDef = ApiRoute | PublicRoute | ScimRoute;

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type InputOf<E extends Endpoint> = Input<Out<E['params']>, Out<E['query']>, Out<E['body']>>;
/** An operation's answer must be the endpoint's declared response (nothing for `204`). */
type ApiHandler<E extends Endpoint> = E extends { stream: 'sse' }
  ? (ctx: Ctx, input: InputOf<E>) => Promise<ReadableStream<Uint8Array>>
  : E extends { status: 204 }
    ? (ctx: Ctx, input: InputOf<E>) => void | Promise<void>
    : (ctx: Ctx, input: InputOf<E>) => CallResult<E> | Promise<CallResult<E>>;

/** How an endpoint is answered: a public one answers itself; an authenticated one returns its record. */
export type Binding<E extends Endpoint> = E['access'] extends 'public'
  ? PublicRoute['handler']
  : E['access'] extends 'scim'
    ? ScimRoute['handler']
    : ApiHandler<E>;

/**
 * The routes of a group of endpoints: each bound to its handler, in the group's order. Every endpoint of the group
 * must have one (a missing handler fails to compile).
 */
export function bind<G extends EndpointGroup>(group: G, handlers: { [K in keyof G]: Binding<G[K]> }): RouteDef[] {
  return Object.entries(group).map(([name, e]) => {
    const h = handlers[name] as Binding<Endpoint>;
    if (e.access === 'public') return { ...e, kind: 'public', handler: h as unknown as PublicRoute['handler'] };
    if (e.access === 'scim') return { ...e, kind: 'scim', handler: h as unknown as ScimRoute['handler'] };
    return { ...e, kind: 'api', handler: h } as ApiRoute;
  });
}

/** A public route of its own, outside the contract (tests). */
export function publicRoute(spec: Endpoint & { handler: PublicRoute['handler'] }): PublicRoute {
  return { ...spec, kind: 'public' };
}
