import { teams } from '../../../contract/endpoints/teams.js';
import {
  addTeamMember,
  createTeam,
  deleteTeam,
  getTeam,
  getTeamMember,
  listTeamMembers,
  listTeams,
  removeTeamMember,
} from '../../operations/teams.js';
import { bind } from '../route.js';

export const teamsRoutes = bind(teams, {
  list: (ctx, { params, query }) => listTeams(ctx, params.orgId, query),
  create: {
    handler: (ctx, { params, body }) => createTeam(ctx, params.orgId, body),
    location: (team) => `/teams/${team.id}`,
  },
  get: (ctx, { params }) => getTeam(ctx, params.teamId),
  delete: (ctx, { params }) => deleteTeam(ctx, params.teamId),
  members: (ctx, { params, query }) => listTeamMembers(ctx, params.teamId, query),
  addMember: {
    handler: (ctx, { params, body }) => addTeamMember(ctx, params.teamId, body),
    location: (member, { params }) => `/teams/${params.teamId}/members/${member.user.id}`,
  },
  getMember: (ctx, { params }) => getTeamMember(ctx, params.teamId, params.userId),
  removeMember: (ctx, { params }) => removeTeamMember(ctx, params.teamId, params.userId),
});
