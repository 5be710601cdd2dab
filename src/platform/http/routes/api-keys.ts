import { apiKeys } from '../../../contract/endpoints/api-keys.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from '../../operations/api-keys.js';
import { bind } from '../route.js';

export const apiKeysRoutes = bind(apiKeys, {
  list: (ctx, { params, query }) => listApiKeys(ctx, params.orgId, query),
  create: (ctx, { params, body }) => createApiKey(ctx, params.orgId, body),
  get: (ctx, { params }) => getApiKey(ctx, params.keyId),
  revoke: (ctx, { params }) => revokeApiKey(ctx, params.keyId),
});
