import { listSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { memberAddSchema, memberListQuerySchema, memberPatchSchema, memberSchema } from '../projects.js';
import { memberParams, projectParams } from './params.js';

const tag = 'members';
const WRITE_NOTE =
  "Organization owners and admins, or the project's admins. Refused with 409 while the project is archived or suspended.";

export const members = {
  list: endpoint({
    method: 'GET',
    path: '/projects/{projectId}/members',
    operationId: 'listMembers',
    summary: "List a project's members",
    description: 'Newest first. Offset paging with `page`/`per_page`, or cursor paging with `limit`/`cursor`.',
    tag,
    access: 'members:read',
    scope: 'project',
    params: projectParams,
    query: memberListQuerySchema,
    response: listSchema(memberSchema),
  }),
  add: endpoint({
    method: 'POST',
    path: '/projects/{projectId}/members',
    operationId: 'addMember',
    summary: 'Add a user of the organization to a project with a role (admin, developer, viewer)',
    description: 'A user outside the organization is 422 (`userId`); one already a member is 409.',
    tag,
    access: 'members:write',
    scope: 'project',
    accessNote: WRITE_NOTE,
    params: projectParams,
    body: memberAddSchema,
    status: 201,
    location: { get: 'getMember', from: { projectId: 'params.projectId', userId: 'user.id' } },
    response: memberSchema,
  }),
  get: endpoint({
    method: 'GET',
    path: '/projects/{projectId}/members/{userId}',
    operationId: 'getMember',
    summary: 'Get one member of a project',
    tag,
    access: 'members:read',
    scope: 'project',
    params: memberParams,
    response: memberSchema,
  }),
  update: endpoint({
    method: 'PATCH',
    path: '/projects/{projectId}/members/{userId}',
    operationId: 'updateMember',
    summary: "Change a member's project role",
    tag,
    access: 'members:write',
    scope: 'project',
    accessNote: WRITE_NOTE,
    params: memberParams,
    body: memberPatchSchema,
    response: memberSchema,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: '/projects/{projectId}/members/{userId}',
    operationId: 'removeMember',
    summary: 'Remove a member from a project',
    tag,
    access: 'members:write',
    scope: 'project',
    accessNote: WRITE_NOTE,
    params: memberParams,
    status: 204,
  }),
} as const;
