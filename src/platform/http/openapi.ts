import * as z from 'zod';
import '../../contract/errors.js';
import type { RouteDef } from './route.js';

type Json = Record<string, unknown>;

const REF = '#/components/schemas/';

/** Rewrites the `$defs` references of an inline schema to components, and drops its `$schema`/`$defs`. */
function inline(schema: z.ZodType, io: 'input' | 'output'): Json {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: `${REF}${id}` };
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  delete json.$schema;
  delete json.$defs;
  return JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', `"${REF}`)) as Json;
}

function components(): Record<string, Json> {
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

function parameters(route: RouteDef): Json[] {
  const out: Json[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = inline(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: s });
    }
  }
  return out;
}

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'Malformed request, missing field or bad query parameter',
  '401': 'Missing, invalid, revoked or expired credentials',
  '403': 'Valid credentials without the needed permission',
  '404': 'Not found, or not visible to this credential',
  '409': 'Conflict with the current state',
  '422': 'A field failed validation',
  '429': 'Rate limited; see Retry-After',
};

/** The OpenAPI 3.1 document of the API, generated from the same route table and zod schemas the server validates with. */
export function buildOpenApi(routes: readonly RouteDef[]): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const errorRef = { $ref: `${REF}Error` };
  for (const route of routes) {
    const ok = String(route.status ?? 200);
    const responses: Record<string, Json> = {
      [ok]:
        route.status === 204
          ? { description: 'Done; no body' }
          : {
              description: route.status === 201 ? 'Created' : 'OK',
              ...(route.response && { content: { 'application/json': { schema: inline(route.response, 'output') } } }),
              ...(route.kind === 'api' && route.location && { headers: { Location: { schema: { type: 'string' } } } }),
            },
    };
    if (route.kind === 'api') {
      for (const [code, description] of Object.entries(ERROR_RESPONSES)) {
        if ((code === '422' || code === '409') && !route.body && route.method === 'GET') continue;
        responses[code] = { description, content: { 'application/json': { schema: errorRef } } };
      }
    }
    const access =
      route.access === 'public'
        ? 'Public: no credentials.'
        : route.access === 'authenticated'
          ? 'Any valid credential.'
          : `Requires \`${route.access}\`.`;
    const op: Json = {
      operationId: route.operationId,
      summary: route.summary,
      description: [route.description, `${access}${route.accessNote ? ` ${route.accessNote}` : ''}`]
        .filter(Boolean)
        .join('\n\n'),
      tags: [route.tag],
      'x-permission': route.access,
      parameters: parameters(route),
      ...(route.body && {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: inline(route.documentedBody ?? route.body, 'input') } },
        },
      }),
      responses,
      ...(route.kind === 'api' && { security: [{ apiKey: [] }, { bearer: [] }] }),
    };
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: op };
  }
  paths['/openapi.json'] = {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      tags: ['meta'],
      'x-permission': 'public',
      responses: { '200': { description: 'OpenAPI 3.1 document' } },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Platform API',
      version: '2',
      description:
        'Organizations, users and invitations, teams, projects with settings, members and environments, sessions, ' +
        'single sign-on, API keys and the audit log. Errors use the envelope `{ "error": { code, message, status, requestId, details? } }`.',
    },
    servers: [{ url: '/v2' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    paths,
    components: {
      schemas: components(),
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}
