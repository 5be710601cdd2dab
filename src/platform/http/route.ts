import type { Context } from 'hono';
import type * as z from 'zod';
import type { Permission } from '../../contract/permissions.js';
import type { BaseCtx, Ctx } from '../context.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call a route, as documented: a permission, any valid credential, or anyone. */
export type Access = Permission | 'authenticated' | 'public';

/** The parsed input of a route. */
export interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

interface RouteBase {
  method: Method;
  /** OpenAPI-style path below `/v2`, e.g. `/organizations/{orgId}/users`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** The permission the operation checks (documentation; the operation enforces it). */
  access: Access;
  /** What more the operation asks of the caller, for the reference (e.g. "owners only"). */
  accessNote?: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The body as the reference shows it, when `body` parses it more loosely (items checked one by one). */
  documentedBody?: z.ZodType;
  status?: 200 | 201 | 204;
  response?: z.ZodType;
  /** The `Location` of a created record (from the result and the parsed input). */
  location?: (result: never, input: never) => string;
}

/** An authenticated JSON route: the handler gets the principal's context and the validated input. */
export interface ApiRoute extends RouteBase {
  kind: 'api';
  handler: (ctx: Ctx, input: Input<never, never, never>) => unknown;
}
/** A public route: the handler gets the base context and Hono's context, and answers itself. */
export interface PublicRoute extends RouteBase {
  kind: 'public';
  handler: (ctx: BaseCtx, c: Context) => Response | Promise<Response>;
}
export type RouteDef = ApiRoute | PublicRoute;

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** Declares an authenticated route; input types follow from its schemas. */
export function route<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R = unknown,
>(
  spec: Omit<RouteBase, 'params' | 'query' | 'body' | 'location'> & {
    params?: P;
    query?: Q;
    body?: B;
    handler: (ctx: Ctx, input: Input<Out<P>, Out<Q>, Out<B>>) => R | Promise<R>;
    location?: (result: Awaited<R>, input: Input<Out<P>, Out<Q>, Out<B>>) => string;
  },
): ApiRoute {
  return { ...spec, kind: 'api' } as unknown as ApiRoute;
}

/** Declares a public route (no credentials). */
export function publicRoute(spec: Omit<PublicRoute, 'kind'>): PublicRoute {
  return { ...spec, kind: 'public' };
}
