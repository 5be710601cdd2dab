import { listSchema } from '../../../contract/common.js';
import { invitationCreateSchema, invitationListQuerySchema, invitationSchema } from '../../../contract/users.js';
import {
  createInvitation,
  getInvitation,
  listInvitations,
  resendInvitation,
  revokeInvitation,
} from '../../operations/invitations.js';
import { type RouteDef, route } from '../route.js';
import { invitationParams, orgParams } from './params.js';

const tag = 'invitations';

export const invitationsRoutes: RouteDef[] = [
  route({
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
    response: invitationSchema,
    handler: (ctx, { params, body }) => createInvitation(ctx, params.orgId, body),
    location: (inv) => `/invitations/${inv.id}`,
  }),
  route({
    method: 'GET',
    path: '/organizations/{orgId}/invitations',
    operationId: 'listInvitations',
    summary: 'List the invitations of an organization, newest first',
    description:
      'Filter `status`: `pending`, `accepted`, `expired` (pending past its `expiresAt`) or `revoked`. Offset paging ' +
      'with `page`/`per_page`, or cursor paging with `limit`/`cursor`.',
    tag,
    access: 'users:read',
    params: orgParams,
    query: invitationListQuerySchema,
    response: listSchema(invitationSchema),
    handler: (ctx, { params, query }) => listInvitations(ctx, params.orgId, query),
  }),
  route({
    method: 'GET',
    path: '/invitations/{invitationId}',
    operationId: 'getInvitation',
    summary: 'Get an invitation',
    tag,
    access: 'users:read',
    params: invitationParams,
    response: invitationSchema,
    handler: (ctx, { params }) => getInvitation(ctx, params.invitationId),
  }),
  route({
    method: 'POST',
    path: '/invitations/{invitationId}/resend',
    operationId: 'resendInvitation',
    summary: 'Resend a pending or expired invitation with a new link and a new 7-day expiry',
    description: 'The previous link stops working. An accepted or revoked invitation → `409`.',
    tag,
    access: 'users:write',
    accessNote: 'Only owners may resend an invitation with the `owner` role; the invited user must still be pending.',
    params: invitationParams,
    response: invitationSchema,
    handler: (ctx, { params }) => resendInvitation(ctx, params.invitationId),
  }),
  route({
    method: 'DELETE',
    path: '/invitations/{invitationId}',
    operationId: 'revokeInvitation',
    summary: 'Revoke an invitation and remove the still-pending user it created',
    description:
      'Removes the pending membership, its team and project memberships, and the account when it belongs to no ' +
      'other organization. Revoking a revoked invitation does nothing (`204`); an accepted one → `409`.',
    tag,
    access: 'users:write',
    accessNote: 'Only owners may revoke an invitation with the `owner` role.',
    params: invitationParams,
    status: 204,
    handler: (ctx, { params }) => revokeInvitation(ctx, params.invitationId),
  }),
];
