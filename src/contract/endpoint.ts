import type * as z from 'zod';
import type { List } from './common.js';
import type { Permission } from './permissions.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an endpoint: a credential holding a permission, any valid credential, a user's own sign-in (an access
 * token, never an API key: enrolling a second factor, docs/mfa.md), anyone (no credentials), or a SCIM token of the
 * path's organization (its SCIM endpoints: docs/scim.md).
 * The request pipeline checks it before the operation reads anything (src/platform/http/pipeline.ts), as `scope`
 * says; `test/platform/permissions.test.ts` derives its matrix from the declarations.
 */
export type Access = Permission | 'authenticated' | 'user' | 'public' | 'scim';

/**
 * Where an endpoint's permission is held (docs/api.md, "Roles and permissions"):
 * - `organization` (the default): the caller's organization role must include it;
 * - `project`: the organization role, or else the caller's role in the project the path's `{projectId}` names (the
 *   pipeline reads it before the operation: a project the caller has no role in is `403`, there or not);
 * - `self`: a user may act on their own records (the path's `{userId}`: sessions, second factors) whatever their
 *   role; another user's need the organization role to include it;
 * - `credential`: what the call makes is not the acting organization's (a new organization): no role there is needed.
 * In every case a restricted credential (key permissions, token scopes) must grant the permission.
 */
export type AccessScope = 'organization' | 'project' | 'self' | 'credential';

/**
 * Which rate-limit bucket a request spends (docs/rate-limits.md): `plan` (the default for authenticated endpoints: the
 * credential's bucket in the organization it acts in, by that organization's plan); `whoami` (a bucket of its own per
 * credential); `token`/`refresh`/`revoke` (the OAuth client's); `identity-provider` (an identity provider's answer:
 * the address's failure budget, charged for each refusal); `scim` (the organization's SCIM bucket, shared by its SCIM
 * tokens); `none` (the default for public endpoints).
 */
export type LimitPolicy = 'plan' | 'whoami' | 'token' | 'refresh' | 'revoke' | 'identity-provider' | 'scim' | 'none';

/**
 * Where a created record can be read: the GET endpoint (by operation id) and, for each of its path's parameters, where
 * its value comes from — `params.<name>` (the request's path) or a path into the created record (`user.id`). Without
 * `from`, the GET's one parameter is the record's `id`.
 */
export interface LocationOf {
  get: string;
  from?: Readonly<Record<string, string>>;
}

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
 * a script of the pages; the OAuth error form; the platform's error envelope; SAML metadata; a SCIM resource or
 * message, or SCIM's error; none) and the headers that matter.
 */
export interface Answer {
  description: string;
  body?: z.ZodType | 'html' | 'javascript' | 'oauth-error' | 'error' | 'saml-metadata' | 'scim' | 'scim-error';
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
  /** Where `access` is held; default `organization`. */
  scope?: AccessScope;
  /** What more the operation asks of the caller, for the reference (e.g. "owners only"). */
  accessNote?: string;
  /**
   * Permissions the caller must hold beside `access`, because the endpoint hands out what they guard (a webhook
   * endpoint receives the audit log: `events:read`). Checked by the pipeline with `access`, before any read.
   */
  alsoRequires?: readonly Permission[];
  /** The rate-limit bucket it spends; default `plan` for an authenticated endpoint, `none` for a public one. */
  limit?: LimitPolicy;
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
  status?: 200 | 201 | 202 | 204;
  response?: z.ZodType;
  /**
   * The answer is a stream of Server-Sent Events (`text/event-stream`) rather than one JSON body: the handler returns
   * a `ReadableStream` of its bytes (src/platform/http/reply.ts), the client reads it with `PlatformClient.stream`.
   */
  stream?: 'sse';
  /** A `201`'s `Location` header: where the created record is read. */
  location?: LocationOf;
  /**
   * The answer holds a secret shown only this once — a key, a token, a signing secret, recovery codes: it is sent with
   * `Cache-Control: no-store`, so that no cache on its way or in the client keeps it (RFC 9111 §5.2.2.5). For an
   * authenticated endpoint (the pipeline refuses it on another); a public one sets its own headers.
   */
  secret?: true;
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

/** One Server-Sent Event as a client reads it (a stream endpoint's records). */
export interface ServerSentEvent {
  /** The `id:` field (what `Last-Event-ID` resumes from), or null. */
  id: string | null;
  /**
   * The `event:` field; `message` when none was sent; '' for a block that carries only an id: a position to resume
   * from, no event (the event stream sends its starting point so).
   */
  event: string;
  data: string;
}

/** How a client opens a stream endpoint: where to resume, and what ends it. */
export interface StreamOptions {
  lastEventId?: string;
  signal?: AbortSignal;
}

/**
 * What a client passes to call an endpoint: the path's parameters in order, then the body or the query (or a stream's
 * options).
 */
export type CallArgs<E extends Endpoint> = [
  ...Strings<PathNames<E['path']>>,
  ...(E extends { stream: 'sse' }
    ? [options?: StreamOptions]
    : E extends { body: z.ZodType }
      ? [body: z.input<E['body']>]
      : E extends { query: z.ZodType }
        ? [query?: QueryOf<E>]
        : []),
];

/** What a call of the endpoint resolves to: the response's record, or nothing for `204`. */
export type CallResult<E extends Endpoint> = E extends { stream: 'sse' }
  ? AsyncIterable<ServerSentEvent>
  : E extends { status: 204 }
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

/** Where the API is served: every endpoint's declared path lies under it (`/v2` + `/users/{userId}`). */
export const API_BASE = '/v2';

/** Where an endpoint answers, under the API's base: its path, with `values` for its parameters when given (escaped). */
export function apiPath(endpoint: Pick<Endpoint, 'path'>, ...values: string[]): string {
  return `${API_BASE}${values.length > 0 ? fillPath(endpoint.path, values) : endpoint.path}`;
}
