import * as z from 'zod';
import { idParam, lazySchema, listSchema } from '../../../contract/common.js';
import { memberAddSchema, memberListQuerySchema, memberPatchSchema, memberSchema } from '../../../contract/projects.js';
import { addMember, getMember, listMembers, removeMember, updateMember } from '../../operations/members.js';
import { type RouteDef, route } from '../route.js';
import { projectParams } from './params.js';

const tag = 'members';
const memberParams = lazySchema(() => z.strictObject({ projectId: idParam('proj'), userId: idParam('user') }));
const WRITE_NOTE =
  "Organization owners and admins, or the project's admins. Refused with 409 while the project is archived or suspended.";

export const membersRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/projects/{projectId}/members',
    operationId: 'listMembers',
    summary: "List a project's members",
    description: 'Newest first. Offset paging with `page`/`per_page`, or cursor paging with `limit`/`cursor`.',
    tag,
    access: 'members:read',
    params: projectParams,
    query: memberListQuerySchema,
    response: listSchema(memberSchema),
    handler: (ctx, { params, query }) => listMembers(ctx, params.projectId, query),
  }),
  route({
    method: 'POST',
    path: '/projects/{projectId}/members',
    operationId: 'addMember',
    summary: 'Add a user of the organization to a project with a role (admin, developer, viewer)',
    description: 'A user outside the organization is 422 (`userId`); one already a member is 409.',
    tag,
    access: 'members:write',
    accessNote: WRITE_NOTE,
    params: projectParams,
    body: memberAddSchema,
    status: 201,
    response: memberSchema,
    handler: (ctx, { params, body }) => addMember(ctx, params.projectId, body),
    location: (m, { params }) => `/projects/${params.projectId}/members/${m.user.id}`,
  }),
  route({
    method: 'GET',
    path: '/projects/{projectId}/members/{userId}',
    operationId: 'getMember',
    summary: 'Get one member of a project',
    tag,
    access: 'members:read',
    params: memberParams,
    response: memberSchema,
    handler: (ctx, { params }) => getMember(ctx, params.projectId, params.userId),
  }),
  route({
    method: 'PATCH',
    path: '/projects/{projectId}/members/{userId}',
    operationId: 'updateMember',
    summary: "Change a member's project role",
    tag,
    access: 'members:write',
    accessNote: WRITE_NOTE,
    params: memberParams,
    body: memberPatchSchema,
    response: memberSchema,
    handler: (ctx, { params, body }) => updateMember(ctx, params.projectId, params.userId, body),
  }),
  route({
    method: 'DELETE',
    path: '/projects/{projectId}/members/{userId}',
    operationId: 'removeMember',
    summary: 'Remove a member from a project',
    tag,
    access: 'members:write',
    accessNote: WRITE_NOTE,
    params: memberParams,
    status: 204,
    handler: (ctx, { params }) => removeMember(ctx, params.projectId, params.userId),
  }),
];
