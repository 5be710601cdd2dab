import { scim } from '../../../contract/endpoints/scim.js';
import { createScimToken, deleteScimToken, getScimToken, listScimTokens } from '../../operations/scim-tokens.js';
import { bind } from '../route.js';

export const scimRoutes = bind(scim, {
  listTokens: (ctx, { params }) => listScimTokens(ctx, params.orgId),
  createToken: (ctx, { params, body }) => createScimToken(ctx, params.orgId, body),
  getToken: (ctx, { params }) => getScimToken(ctx, params.orgId, params.tokenId),
  deleteToken: (ctx, { params }) => deleteScimToken(ctx, params.orgId, params.tokenId),
});
