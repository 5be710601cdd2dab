import { listSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import {
  invitationCreateSchema,
  invitationSchema,
  listedUserSchema,
  MAX_BATCH_USERS,
  userBatchInputSchema,
  userBatchReplySchema,
  userBatchSchema,
  userListQuerySchema,
  userPatchSchema,
  userSchema,
} from '../users.js';
import { orgParams, userParams } from './params.js';

const tag = 'users';

export const users = {
  list: endpoint({
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
  }),
  batch: endpoint({
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
  }),
  get: endpoint({
    method: 'GET',
    path: '/users/{userId}',
    operationId: 'getUser',
    summary: 'Get a user',
    tag,
    access: 'users:read',
    params: userParams,
    response: userSchema,
  }),
  update: endpoint({
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
  }),
  suspend: endpoint({
    method: 'POST',
    path: '/users/{userId}/suspend',
    operationId: 'suspendUser',
    summary: 'Suspend a user, revoking all their sessions and API keys at once',
    tag,
    access: 'users:write',
    accessNote: 'Not yourself, not the last owner; only owners may suspend an owner.',
    params: userParams,
    response: userSchema,
  }),
  unsuspend: endpoint({
    method: 'POST',
    path: '/users/{userId}/unsuspend',
    operationId: 'unsuspendUser',
    summary: 'Return a suspended user to active (or pending if they never accepted)',
    tag,
    access: 'users:write',
    params: userParams,
    response: userSchema,
  }),
  delete: endpoint({
    method: 'DELETE',
    path: '/users/{userId}',
    operationId: 'deleteUser',
    summary: 'Remove a user from the organization (irreversible)',
    tag,
    access: 'users:write',
    accessNote: 'Not yourself, not the last owner; only owners may delete an owner.',
    params: userParams,
    status: 204,
  }),
  invite: endpoint({
    method: 'POST',
    path: '/organizations/{orgId}/users',
    operationId: 'inviteUser',
    summary: 'Invite a user: creates a pending user and e-mails them an invitation link',
    description:
      '`email` is required; `role` defaults to `member`; `teams` lists team ids of this organization (`422` otherwise). ' +
      'A new e-mail gets a new, unverified account; a person already in another organization gets a pending ' +
      'membership here. An e-mail already in this organization → `409`. The invitation expires after 7 days; the ' +
      "e-mail's link (to the instance's public URL) lets the person set a password and become `active`.",
    tag: 'users',
    access: 'users:write',
    accessNote: 'Only owners may invite with the `owner` role.',
    params: orgParams,
    body: invitationCreateSchema,
    status: 201,
    location: { get: 'getInvitation' },
    response: invitationSchema,
  }),
} as const;
