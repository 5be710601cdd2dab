import { scimProtocol } from '../../../contract/endpoints/scim-protocol.js';
import { resourceTypes, schemas, serviceProviderConfig } from '../../scim/discovery.js';
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from '../../scim/groups.js';
import { createUser, deleteScimUser, getUser, listUsers, patchUser, replaceUser } from '../../scim/users.js';
import { bind } from '../route.js';

export const scimProtocolRoutes = bind(scimProtocol, {
  serviceProviderConfig: async (ctx) => serviceProviderConfig(ctx),
  resourceTypes: async (ctx) => resourceTypes(ctx),
  schemas: async (ctx) => schemas(ctx),
  listUsers: (ctx, { query }) => listUsers(ctx, query),
  createUser: (ctx, { body }) => createUser(ctx, body),
  getUser: (ctx, { params }) => getUser(ctx, params.id as string),
  replaceUser: (ctx, { params, body }) => replaceUser(ctx, params.id as string, body),
  patchUser: (ctx, { params, body }) => patchUser(ctx, params.id as string, body),
  deleteUser: (ctx, { params }) => deleteScimUser(ctx, params.id as string),
  listGroups: (ctx, { query }) => listGroups(ctx, query),
  createGroup: (ctx, { body }) => createGroup(ctx, body),
  getGroup: (ctx, { params, query }) => getGroup(ctx, params.id as string, query),
  replaceGroup: (ctx, { params, body }) => replaceGroup(ctx, params.id as string, body),
  patchGroup: (ctx, { params, body }) => patchGroup(ctx, params.id as string, body),
  deleteGroup: (ctx, { params }) => deleteGroup(ctx, params.id as string),
});
