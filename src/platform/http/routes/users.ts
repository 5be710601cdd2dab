import { listSchema } from '../../../contract/common.js';
import {
  listedUserSchema,
  MAX_BATCH_USERS,
  userBatchInputSchema,
  userBatchReplySchema,
  userBatchSchema,
  userListQuerySchema,
  userPatchSchema,
  userSchema,
} from '../../../contract/users.js';
import { deleteUser, getUser, listUsers, suspendUser, unsuspendUser, updateUser } from '../../operations/users.js';
import { batchUsers } from '../../operations/users-batch.js';
import { type RouteDef, route } from '../route.js';
import { orgParams, userParams } from './params.js';

const tag = 'users';

export const userRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/organizations/{orgId}/users',
    operationId: 'listUsers',
    summary: 'List the users of an organization',
    description:
      'Filters `status` and `search` (case-insensitive substring of name or e-mail); `sort` by `created_at` (default), ' +
      '`name`, `email` or `last_login_at`, `order` `desc` (default) or `asc`. Offset paging with `page`/`per_page`, ' +
      'or cursor paging with `limit`/`cursor`. `expand=teams` adds `teams` to each user: the ids of their teams, A to ' +
      'Z by name (a cursor continues its listing with or without it).',
    tag,
    access: 'users:read',
    params: orgParams,
    query: userListQuerySchema,
    response: listSchema(listedUserSchema),
    handler: (ctx, { params, query }) => listUsers(ctx, params.orgId, query),
  }),
  route({
    method: 'POST',
    path: '/organizations/{orgId}/users/batch',
    operationId: 'batchUsers',
    summary: 'Create or update many users at once: per-item outcomes, a dry run, one request for rate limits',
    description:
      `1–${MAX_BATCH_USERS} items, each applied on its own: one that fails (\`error\`: the envelope's code, message ` +
      'and details) changes nothing and stops nothing else. `mode` `create` (default) makes pending users and leaves ' +
      'a member that already matches `unchanged` (409 for the item when it differs); `upsert` updates name, role, ' +
      'teams (replaced; ids or names) and metadata (merged, `null` deletes a key). `invite` mails the invitations ' +
      'of created users (else they are created unsent: POST /invitations/{id}/resend sends one); `dryRun` reports ' +
      'the outcomes without changing anything. The same e-mail twice fails the second item. One event per changed ' +
      'user. The body is at most 1 MiB, as every request.',
    tag,
    access: 'users:write',
    accessNote: 'Only owners may create owners or change one.',
    params: orgParams,
    body: userBatchInputSchema,
    documentedBody: userBatchSchema,
    response: userBatchReplySchema,
    handler: (ctx, { params, body }) => batchUsers(ctx, params.orgId, body),
  }),
  route({
    method: 'GET',
    path: '/users/{userId}',
    operationId: 'getUser',
    summary: 'Get a user',
    tag,
    access: 'users:read',
    params: userParams,
    response: userSchema,
    handler: (ctx, { params }) => getUser(ctx, params.userId),
  }),
  route({
    method: 'PATCH',
    path: '/users/{userId}',
    operationId: 'updateUser',
    summary: 'Update a user: name, avatar, role, metadata (merged; null deletes a key)',
    tag,
    access: 'users:write',
    accessNote: 'Only owners may change an owner or grant the owner role; the last owner cannot be demoted.',
    params: userParams,
    body: userPatchSchema,
    response: userSchema,
    handler: (ctx, { params, body }) => updateUser(ctx, params.userId, body),
  }),
  route({
    method: 'POST',
    path: '/users/{userId}/suspend',
    operationId: 'suspendUser',
    summary: 'Suspend a user, revoking all their sessions and API keys at once',
    tag,
    access: 'users:write',
    accessNote: 'Not yourself, not the last owner; only owners may suspend an owner.',
    params: userParams,
    response: userSchema,
    handler: (ctx, { params }) => suspendUser(ctx, params.userId),
  }),
  route({
    method: 'POST',
    path: '/users/{userId}/unsuspend',
    operationId: 'unsuspendUser',
    summary: 'Return a suspended user to active (or pending if they never accepted)',
    tag,
    access: 'users:write',
    params: userParams,
    response: userSchema,
    handler: (ctx, { params }) => unsuspendUser(ctx, params.userId),
  }),
  route({
    method: 'DELETE',
    path: '/users/{userId}',
    operationId: 'deleteUser',
    summary: 'Remove a user from the organization (irreversible)',
    tag,
    access: 'users:write',
    accessNote: 'Not yourself, not the last owner; only owners may delete an owner.',
    params: userParams,
    status: 204,
    handler: (ctx, { params }) => deleteUser(ctx, params.userId),
  }),
];
