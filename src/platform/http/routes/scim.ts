import { scim } from '../../../contract/endpoints/scim.js';
import {
  createScimToken,
  deleteScimToken,
  getScimToken,
  listScimTokens,
  scimStatus,
} from '../../operations/scim-tokens.js';
import { bind } from '../route.js';

export const scimRoutes = bind(scim, {
  status: (ctx, { params }) => scimStatus(ctx, params.orgId),
  listTokens: (ctx, { params }) => listScimTokens(ctx, params.orgId),
  createToken: (ctx, { params, body }) => createScimToken(ctx, params.orgId, body),
  getToken: (ctx, { params }) => getScimToken(ctx, params.orgId, params.tokenId),
  deleteToken: (ctx, { params }) => deleteScimToken(ctx, params.orgId, params.tokenId),
});
