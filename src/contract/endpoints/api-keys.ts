import { apiKeyCreateSchema, apiKeyListQuerySchema, apiKeySchema, createdApiKeySchema } from '../api-keys.js';
import { listSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { keyParams, orgParams } from './params.js';

const tag = 'api-keys';

export const apiKeys = {
  list: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/api-keys',
    operationId: 'listApiKeys',
    summary: 'List the API keys of an organization, active and revoked, newest first',
    description:
      'Offset paging with `page`/`per_page`, or cursor paging with `limit`/`cursor`. Secrets are never shown.',
    tag,
    access: 'keys:read',
    params: orgParams,
    query: apiKeyListQuerySchema,
    response: listSchema(apiKeySchema),
  }),
  create: endpoint({
    method: 'POST',
    path: '/organizations/{orgId}/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key of the calling user; the secret `key` is in this response only',
    description:
      '`environment` must match the instance: `live` on a live instance, `test` on a sandbox (422 otherwise). ' +
      '`projectIds` must name projects of the organization (422). `expiresAt` must be in the future (422).',
    tag,
    access: 'keys:write',
    accessNote:
      'A key never reaches further than its creator (403 otherwise): `permissions` must be held by the caller, ' +
      "`projectIds` must lie within the caller's own project restriction, and `multiOrganization: true` needs a " +
      "multi-organization credential. A restricted caller's key inherits the caller's restrictions it omits.",
    params: orgParams,
    body: apiKeyCreateSchema,
    status: 201,
    location: { get: 'getApiKey' },
    response: createdApiKeySchema,
    secret: true,
  }),
  get: endpoint({
    method: 'GET',
    path: '/api-keys/{keyId}',
    operationId: 'getApiKey',
    summary: 'Get an API key (never its secret)',
    tag,
    access: 'keys:read',
    params: keyParams,
    response: apiKeySchema,
  }),
  revoke: endpoint({
    method: 'DELETE',
    path: '/api-keys/{keyId}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key at once (revoking a revoked key answers 204)',
    tag,
    access: 'keys:write',
    accessNote: "Only owners may revoke an owner's key.",
    params: keyParams,
    status: 204,
  }),
} as const;
