import { listSchema } from '../../../contract/common.js';
import { teamCreateSchema, teamListQuerySchema, teamMemberSchema, teamSchema } from '../../../contract/teams.js';
import { createTeam, deleteTeam, getTeam, listTeamMembers, listTeams } from '../../operations/teams.js';
import { type RouteDef, route } from '../route.js';
import { orgParams, teamParams } from './params.js';

const tag = 'teams';

export const teamsRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/organizations/{orgId}/teams',
    operationId: 'listTeams',
    summary: 'List the teams of an organization, by name',
    description: 'Sorted by name, case-insensitively. Offset paging with `page`/`per_page`, or cursor paging.',
    tag,
    access: 'users:read',
    params: orgParams,
    query: teamListQuerySchema,
    response: listSchema(teamSchema),
    handler: (ctx, { params, query }) => listTeams(ctx, params.orgId, query),
  }),
  route({
    method: 'POST',
    path: '/organizations/{orgId}/teams',
    operationId: 'createTeam',
    summary: 'Create a team',
    description: 'Team names are unique in an organization, compared case-insensitively (`409`).',
    tag,
    access: 'users:write',
    params: orgParams,
    body: teamCreateSchema,
    status: 201,
    response: teamSchema,
    handler: (ctx, { params, body }) => createTeam(ctx, params.orgId, body),
    location: (team) => `/teams/${team.id}`,
  }),
  route({
    method: 'GET',
    path: '/teams/{teamId}',
    operationId: 'getTeam',
    summary: 'Get a team',
    tag,
    access: 'users:read',
    params: teamParams,
    response: teamSchema,
    handler: (ctx, { params }) => getTeam(ctx, params.teamId),
  }),
  route({
    method: 'DELETE',
    path: '/teams/{teamId}',
    operationId: 'deleteTeam',
    summary: 'Delete a team and its memberships (the users stay in the organization)',
    tag,
    access: 'users:write',
    params: teamParams,
    status: 204,
    handler: (ctx, { params }) => deleteTeam(ctx, params.teamId),
  }),
  route({
    method: 'GET',
    path: '/teams/{teamId}/members',
    operationId: 'listTeamMembers',
    summary: 'List the members of a team, earliest joined first',
    description: 'Pending (invited) users are members too. Offset paging with `page`/`per_page`, or cursor paging.',
    tag,
    access: 'users:read',
    params: teamParams,
    query: teamListQuerySchema,
    response: listSchema(teamMemberSchema),
    handler: (ctx, { params, query }) => listTeamMembers(ctx, params.teamId, query),
  }),
];
