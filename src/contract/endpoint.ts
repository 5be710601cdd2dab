import type * as z from 'zod';
import type { List } from './common.js';
import type { Permission } from './permissions.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an endpoint: a credential holding a permission, any valid credential, or anyone (no credentials).
 * The permission is checked by the operation; `test/platform/permissions.test.ts` proves that it is, route by route.
 */
export type Access = Permission | 'authenticated' | 'public';

/** A response header an answer documents (beyond `X-Request-Id` and `X-RateLimit-*`, which every answer has). */
export type AnswerHeader =
  | 'Location'
  | 'Cache-Control'
  | 'Set-Cookie'
  | 'WWW-Authenticate'
  | 'Retry-After'
  | 'Content-Security-Policy';

/**
 * What a public endpoint answers with one status, for the OpenAPI document: its body (JSON of a schema; an HTML page;
 * the OAuth error form; the platform's error envelope; SAML metadata; none) and the headers that matter.
 */
export interface Answer {
  description: string;
  body?: z.ZodType | 'html' | 'oauth-error' | 'error' | 'saml-metadata';
  /** Also the error envelope (a limit or a failure the platform answers for every route). */
  alsoEnvelope?: boolean;
  headers?: readonly AnswerHeader[];
}

/**
 * One endpoint of the API, declared once: the server binds a handler to it (src/platform/http/routes/), the client
 * derives a method from it (src/client/resources.ts), the reference and the OpenAPI document are written from it.
 */
export interface Endpoint {
  method: Method;
  /** OpenAPI-style path below `/v2`, e.g. `/organizations/{orgId}/users`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  /** What more the operation asks of the caller, for the reference (e.g. "owners only"). */
  accessNote?: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The body as the reference shows it, when `body` parses it more loosely (items checked one by one). */
  documentedBody?: z.ZodType;
  /**
   * A public endpoint's form (`application/x-www-form-urlencoded`); with `formAsJson`, also taken as a JSON object
   * of strings (the OAuth endpoints).
   */
  form?: z.ZodType;
  formAsJson?: boolean;
  /**
   * What a public endpoint answers, by status (its handler answers itself). An authenticated endpoint's answers
   * follow from the rest of its declaration (src/platform/http/openapi.ts).
   */
  answers?: Readonly<Record<number, Answer>>;
  status?: 200 | 201 | 204;
  response?: z.ZodType;
}

/** Declares an endpoint, keeping its literal types (path, method, schemas) for the server and client to derive. */
export function endpoint<const E extends Endpoint>(spec: E): E {
  return spec;
}

/** A group of endpoints under the names the client gives their methods (`users.list`, `users.get`…). */
export type EndpointGroup = Readonly<Record<string, Endpoint>>;

/** `'/projects/{projectId}/members/{userId}'` → `['projectId', 'userId']`. */
export type PathNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? [N, ...PathNames<Rest>] : [];

/** As many strings as `T` has members (a path's parameters). */
export type Strings<T extends unknown[]> = { [K in keyof T]: string };

/** The query a client sends an endpoint, as its schema reads it (`never` for one without a query). */
export type QueryOf<E extends Endpoint> = E extends { query: infer Q extends z.ZodType } ? z.output<Q> : never;

/** What a client passes to call an endpoint: the path's parameters in order, then the body or the query. */
export type CallArgs<E extends Endpoint> = [
  ...Strings<PathNames<E['path']>>,
  ...(E extends { body: z.ZodType }
    ? [body: z.input<E['body']>]
    : E extends { query: z.ZodType }
      ? [query?: QueryOf<E>]
      : []),
];

/** What a call of the endpoint resolves to: the response's record, or nothing for `204`. */
export type CallResult<E extends Endpoint> = E extends { status: 204 }
  ? undefined
  : E extends { response: infer R extends z.ZodType }
    ? z.output<R>
    : unknown;

/** The record of a paginated list endpoint (`never` for any other). */
export type ListItem<E extends Endpoint> = CallResult<E> extends List<infer T> ? T : never;

/** The names of a path's parameters, at run time. */
export function pathNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

/** The path with its parameters filled in, each escaped: ids come from users and may hold anything. */
export function fillPath(path: string, values: readonly string[]): string {
  let i = 0;
  return path.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[i++] ?? ''));
}
