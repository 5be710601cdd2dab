import { listSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { invitationListQuerySchema, invitationSchema } from '../users.js';
import { invitationParams, orgParams } from './params.js';

const tag = 'invitations';

export const invitations = {
  list: endpoint({
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
  }),
  get: endpoint({
    method: 'GET',
    path: '/invitations/{invitationId}',
    operationId: 'getInvitation',
    summary: 'Get an invitation',
    tag,
    access: 'users:read',
    params: invitationParams,
    response: invitationSchema,
  }),
  resend: endpoint({
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
  }),
  revoke: endpoint({
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
  }),
} as const;
