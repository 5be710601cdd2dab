import { members } from '../../../contract/endpoints/members.js';
import { addMember, getMember, listMembers, removeMember, updateMember } from '../../operations/members.js';
import { bind } from '../route.js';

export const membersRoutes = bind(members, {
  list: (ctx, { params, query }) => listMembers(ctx, params.projectId, query),
  add: (ctx, { params, body }) => addMember(ctx, params.projectId, body),
  get: (ctx, { params }) => getMember(ctx, params.projectId, params.userId),
  update: (ctx, { params, body }) => updateMember(ctx, params.projectId, params.userId, body),
  remove: (ctx, { params }) => removeMember(ctx, params.projectId, params.userId),
});
