import * as z from 'zod';
import { intParamBounds } from '../../contract/common.js';
import { type Answer, API_BASE, type Endpoint } from '../../contract/endpoint.js';
import { openapiDocument } from '../../contract/endpoints/meta.js';
import '../../contract/errors.js';
import { RFC8414_PATH } from '../auth/discovery.js';
import '../../contract/oauth.js';
import '../../contract/scim.js';
import { REQUEST_ID } from './reply.js';
import type { RouteDef } from './route.js';

// The OpenAPI 3.1 document of the API (docs/api.md, "Conventions"), generated from the same route table and zod schemas the server
// validates with: every operation, public ones included, with every status it answers, its content types and the
// headers a client reads. Responses and headers shared by many operations are components, referred to by name.

type Json = Record<string, unknown>;

/** What the document is made from: a route of the table, or an endpoint the app serves beside it. */
type Documented = Endpoint & { kind: RouteDef['kind'] };

const REF = '#/components/schemas/';
const RESPONSE = '#/components/responses/';
const HEADER = '#/components/headers/';
const PARAMETER = '#/components/parameters/';

/** Rewrites the `$defs` references of an inline schema to components, and drops its `$schema`/`$defs`. */
function inline(schema: z.ZodType, io: 'input' | 'output'): Json {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: `${REF}${id}` };
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', override: queryIntegers }) as Json;
  delete json.$schema;
  delete json.$defs;
  return JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', `"${REF}`)) as Json;
}

/**
 * A query-string integer (`intParam`) is sent as digits, which its input schema says as a string with a pattern: the
 * document calls it what it means, an integer within its bounds.
 */
function queryIntegers(ctx: { zodSchema: unknown; jsonSchema: Json }): void {
  const bounds = intParamBounds(ctx.zodSchema as z.ZodType);
  if (!bounds) return;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, { type: 'integer', ...bounds });
}

function schemas(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `${REF}${id}`,
  }) as { schemas: Record<string, Json> };
  for (const s of Object.values(schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  // By name: the document does not change with the order modules happen to register their schemas in.
  return Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const string = { type: 'string' };
const integer = { type: 'integer' };

/** Every response header the document names, described once. */
const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description:
      "The request's id: the client's own `X-Request-Id` when valid (1–200 visible ASCII characters), else a " +
      'generated `req_…`; the same as `error.requestId`.',
    required: true,
    schema: string,
  },
  'X-RateLimit-Limit': {
    description: "The bucket's rate, in requests a minute (while rate limits are on, on every answer).",
    schema: integer,
  },
  'X-RateLimit-Remaining': { description: 'The whole requests left in the bucket.', schema: integer },
  'X-RateLimit-Reset': { description: 'The Unix second at which the bucket is full again.', schema: integer },
  'Retry-After': { description: 'Seconds to wait before trying again (at least 1).', required: true, schema: integer },
  Location: { description: 'Where the record, or the next step, is.', required: true, schema: string },
  'Cache-Control': {
    description:
      '`no-store` for tokens, pages, redirects and every answer holding a secret shown once (the event stream: ' +
      "`no-cache, no-store`); `public, max-age=300` for the authorization server's metadata, its signing keys " +
      "(JWKS) and the pages' scripts.",
    schema: string,
  },
  'Set-Cookie': {
    description: 'The CSRF cookie `plat_csrf` of the sign-in forms (HttpOnly, SameSite=Strict).',
    schema: string,
  },
  'WWW-Authenticate': { description: 'The challenge of an `invalid_client` (RFC 6749 §5.2).', schema: string },
  'Content-Security-Policy': {
    description: "The page's policy: nothing loads but its own style (and, on a page with a passkey, its own scripts).",
    schema: string,
  },
};

const headerRef = (name: string) => ({ $ref: `${HEADER}${name}` });
const LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** A response's headers: its id always, the rate limits unless refused before them (`limits: false`), and more. */
function headers(more: readonly string[], limits = true): Json {
  const names = ['X-Request-Id', ...(limits ? LIMIT_HEADERS : []), ...more];
  return Object.fromEntries([...new Set(names)].map((name) => [name, headerRef(name)]));
}

const ENVELOPE = { 'application/json': { schema: { $ref: `${REF}Error` } } };

/** The answers every operation may get, in the error envelope, by status. */
const SHARED: Record<string, { name: string; description: string; headers?: string[]; limits?: boolean }> = {
  '400': { name: 'BadRequest', description: 'Malformed request, missing field or bad query parameter' },
  '401': { name: 'Unauthorized', description: 'Missing, invalid, revoked or expired credentials' },
  '403': {
    name: 'Forbidden',
    description: 'Valid credentials without the needed permission, or an `X-Org-Id` they may not act in',
  },
  '404': { name: 'NotFound', description: 'Not found, or not visible to this credential' },
  '408': { name: 'RequestTimeout', description: 'Headers or body not received in time', limits: false },
  '409': { name: 'Conflict', description: 'Conflict with the current state' },
  '413': { name: 'ContentTooLarge', description: 'A body over 1 MiB, refused unread', limits: false },
  '414': { name: 'UriTooLong', description: 'A path and query over 8 KiB', limits: false },
  '422': { name: 'ValidationFailed', description: 'A field failed validation; `error.details` names each' },
  '429': { name: 'RateLimited', description: 'Rate limited; see `Retry-After`', headers: ['Retry-After'] },
  '431': { name: 'HeadersTooLarge', description: 'Request headers over 16 KiB', limits: false },
  '500': { name: 'InternalError', description: 'An unexpected failure (reported in the server log, never here)' },
};

function sharedResponses(): Record<string, Json> {
  return Object.fromEntries(
    Object.values(SHARED).map((r) => [
      r.name,
      { description: r.description, headers: headers(r.headers ?? [], r.limits !== false), content: ENVELOPE },
    ]),
  );
}

const shared = (status: string) => ({ $ref: `${RESPONSE}${(SHARED[status] as { name: string }).name}` });

/** The content of a declared answer's body. */
function content(body: Answer['body']): Json | undefined {
  if (body === undefined) return undefined;
  if (body === 'html') return { 'text/html': { schema: string } };
  if (body === 'oauth-error') return { 'application/json': { schema: { $ref: `${REF}OAuthError` } } };
  if (body === 'error') return ENVELOPE;
  if (body === 'saml-metadata') return { 'application/samlmetadata+xml': { schema: string } };
  if (body === 'javascript') return { 'text/javascript': { schema: string } };
  if (body === 'scim') return { 'application/scim+json': { schema: { type: 'object' } } };
  if (body === 'scim-error') return { 'application/scim+json': { schema: { $ref: `${REF}ScimError` } } };
  return { 'application/json': { schema: inline(body, 'output') } };
}

function parameters(route: Documented): Json[] {
  const out: Json[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = inline(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = s;
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(typeof description === 'string' && { description }),
        schema: rest,
      });
    }
  }
  out.push({ $ref: `${PARAMETER}X-Request-Id` });
  if (route.access !== 'public' && route.access !== 'scim') out.push({ $ref: `${PARAMETER}X-Org-Id` });
  return out;
}

/** The responses of an authenticated operation: its success, then every error the platform may answer it with. */
function apiResponses(route: Documented): Json {
  const status = String(route.status ?? 200);
  const success: Json =
    route.status === 204
      ? { description: 'Done; no body', headers: headers([]) }
      : {
          description: route.status === 201 ? 'Created' : route.status === 202 ? 'Accepted' : 'OK',
          headers: headers([
            ...(route.location ? ['Location'] : []),
            ...(route.secret || route.stream ? ['Cache-Control'] : []),
          ]),
          ...(route.stream === 'sse'
            ? { content: { 'text/event-stream': { schema: { type: 'string' } } } }
            : route.response && { content: { 'application/json': { schema: inline(route.response, 'output') } } }),
        };
  const writes = route.method !== 'GET';
  const codes = ['400', '401', '403'];
  if (route.params) codes.push('404');
  codes.push('408');
  if (writes) codes.push('409', '413');
  codes.push('414');
  if (writes) codes.push('422');
  codes.push('429', '431', '500');
  return { [status]: success, ...Object.fromEntries(codes.map((code) => [code, shared(code)])) };
}

/** A content that may also be the error envelope: beside it, or one of two JSON bodies (told apart by `error`). */
function withEnvelope(body: Json | undefined): Json {
  const json = body?.['application/json'] as { schema: Json } | undefined;
  if (!json) return { ...body, ...ENVELOPE };
  if (JSON.stringify(json.schema) === JSON.stringify(ENVELOPE['application/json'].schema)) return body as Json;
  return { ...body, 'application/json': { schema: { oneOf: [json.schema, ENVELOPE['application/json'].schema] } } };
}

/** The responses of a public operation: what it declares, then the limits and failures any request may meet. */
function publicResponses(route: { method: string; answers?: Readonly<Record<number, Answer>> }): Json {
  const out: Json = {};
  for (const [status, answer] of Object.entries(route.answers ?? {})) {
    const body = content(answer.body);
    // A 400 is also the listener's, for any request it cannot take (a bad Host or request target): the envelope.
    const withError = answer.alsoEnvelope || status === '400' ? withEnvelope(body) : body;
    out[status] = {
      description: answer.description,
      headers: headers(answer.headers ?? []),
      ...(withError && { content: withError }),
    };
  }
  const codes = ['400', '408', ...(route.method !== 'GET' ? ['413'] : []), '414', '429', '431', '500'];
  for (const code of codes) out[code] ??= shared(code);
  return out;
}

/** The request body of an operation: JSON, or a form (also as JSON where the OAuth endpoints take that). */
function requestBody(route: Documented): Json | undefined {
  if (route.body) {
    const schema = inline(route.documentedBody ?? route.body, 'input');
    // SCIM's own media type, and JSON as identity providers also send it.
    const types = route.kind === 'scim' ? ['application/scim+json', 'application/json'] : ['application/json'];
    return { required: true, content: Object.fromEntries(types.map((type) => [type, { schema }])) };
  }
  if (route.form) {
    const schema = inline(route.form, 'input');
    return {
      required: true,
      content: {
        'application/x-www-form-urlencoded': { schema },
        ...(route.formAsJson && { 'application/json': { schema } }),
      },
    };
  }
  return undefined;
}

/** Who may call an operation, in words. */
function accessNote(route: Documented): string {
  const access =
    route.access === 'public'
      ? 'Public: no credentials.'
      : route.access === 'scim'
        ? "A SCIM token of the path's organization (`Authorization: Bearer scim_…`); nothing else."
        : route.access === 'authenticated'
          ? 'Any valid credential.'
          : route.access === 'user'
            ? "A user's access token (API keys are refused with `403`)."
            : `Requires \`${route.access}\`.`;
  return `${access}${route.accessNote ? ` ${route.accessNote}` : ''}`;
}

const TAGS: Record<string, string> = {
  meta: 'The instance and this document',
  auth: 'Signing in: OAuth 2.0 with PKCE, the device flow, tokens, and the pages people use',
  organizations: 'Organizations and their plans',
  users: 'Users of an organization, their roles and status, and bulk provisioning',
  invitations: 'Invitations to join an organization',
  teams: 'Teams of users',
  projects: 'Projects and their settings',
  members: "Projects' members and their roles",
  environments: "Projects' environments and their variables",
  sessions: 'Sign-in sessions',
  'api-keys': 'API keys',
  sso: 'Single sign-on through SAML 2.0 or OpenID Connect',
  domains: 'Domains an organization proves it owns, by a DNS TXT record: where its single sign-on applies',
  scim: 'Directory sync: SCIM 2.0 tokens of the identity providers that provision the organization',
  events: 'The audit log',
};

/** The OpenAPI 3.1 document of the API, generated from the same route table and zod schemas the server validates with. */
export function buildOpenApi(routes: readonly RouteDef[]): Json {
  const paths: Record<string, Json> = {};
  const document: Documented = { ...openapiDocument, kind: 'public' };
  for (const route of [document, ...routes]) {
    const body = requestBody(route);
    const op: Json = {
      operationId: route.operationId,
      summary: route.summary,
      description: [route.description, accessNote(route)].filter(Boolean).join('\n\n'),
      tags: [route.tag],
      'x-permission': route.access,
      parameters: parameters(route),
      ...(body && { requestBody: body }),
      // A body parsed more loosely than documented takes its items one by one: a bad item fails alone, in the answer.
      ...(route.documentedBody && { 'x-items-checked-one-by-one': true }),
      responses: route.kind === 'api' ? apiResponses(route) : publicResponses(route),
      security:
        route.kind === 'api' ? [{ apiKey: [] }, { bearer: [] }] : route.kind === 'scim' ? [{ scimToken: [] }] : [],
    };
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: op };
  }
  // RFC 8414 §3.1 puts the issuer's metadata outside `/v2`, at the origin's root: the same answer there.
  const metadata = paths['/auth/.well-known/openid-configuration']?.get as Json | undefined;
  if (metadata) {
    paths[RFC8414_PATH] = {
      servers: [{ url: '/' }],
      get: {
        ...metadata,
        operationId: 'getAuthServerMetadataAtRoot',
        summary: 'Authorization server metadata where RFC 8414 §3.1 puts it for the issuer `{origin}/v2/auth`',
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Platform API',
      version: '2',
      description:
        'Organizations, users and invitations, teams, projects with settings, members and environments, sessions, ' +
        'single sign-on, API keys and the audit log. Errors use the envelope ' +
        '`{ "error": { code, message, status, requestId, details? } }`; the OAuth endpoints answer theirs in the ' +
        'RFC 6749 form `{ error, error_description }`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: API_BASE }],
    security: [{ apiKey: [] }, { bearer: [] }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: schemas(),
      responses: sharedResponses(),
      headers: HEADERS,
      parameters: {
        'X-Request-Id': {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description:
            "An id of the caller's for this request, echoed back in `X-Request-Id` and `error.requestId` when valid " +
            '(1–200 visible ASCII characters); an invalid one is replaced by a generated `req_…`, not refused.',
          schema: { type: 'string', pattern: REQUEST_ID.source },
        },
        'X-Org-Id': {
          name: 'X-Org-Id',
          in: 'header',
          required: false,
          description:
            'The organization to act in, for a multi-organization credential (`403` where it may not); default the ' +
            "path's organization, else the credential's own.",
          schema: string,
        },
      },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        scimToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'scim_…',
          description: 'A SCIM token (docs/scim.md)',
        },
      },
    },
  };
}
