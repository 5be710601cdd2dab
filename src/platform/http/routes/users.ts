import { users } from '../../../contract/endpoints/users.js';
import { createInvitation } from '../../operations/invitations.js';
import { deleteUser, getUser, listUsers, suspendUser, unsuspendUser, updateUser } from '../../operations/users.js';
import { batchUsers } from '../../operations/users-batch.js';
import { bind } from '../route.js';

export const userRoutes = bind(users, {
  list: (ctx, { params, query }) => listUsers(ctx, params.orgId, query),
  batch: (ctx, { params, body }) => batchUsers(ctx, params.orgId, body),
  get: (ctx, { params }) => getUser(ctx, params.userId),
  update: (ctx, { params, body }) => updateUser(ctx, params.userId, body),
  suspend: (ctx, { params }) => suspendUser(ctx, params.userId),
  unsuspend: (ctx, { params }) => unsuspendUser(ctx, params.userId),
  delete: (ctx, { params }) => deleteUser(ctx, params.userId),
  invite: (ctx, { params, body }) => createInvitation(ctx, params.orgId, body),
});
