import { invitations } from '../../../contract/endpoints/invitations.js';
import { getInvitation, listInvitations, resendInvitation, revokeInvitation } from '../../operations/invitations.js';
import { bind } from '../route.js';

export const invitationsRoutes = bind(invitations, {
  list: (ctx, { params, query }) => listInvitations(ctx, params.orgId, query),
  get: (ctx, { params }) => getInvitation(ctx, params.invitationId),
  resend: (ctx, { params }) => resendInvitation(ctx, params.invitationId),
  revoke: (ctx, { params }) => revokeInvitation(ctx, params.invitationId),
});
