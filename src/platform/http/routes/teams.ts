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
  create: (ctx, { params, body }) => createTeam(ctx, params.orgId, body),
  get: (ctx, { params }) => getTeam(ctx, params.teamId),
  delete: (ctx, { params }) => deleteTeam(ctx, params.teamId),
  members: (ctx, { params, query }) => listTeamMembers(ctx, params.teamId, query),
  addMember: (ctx, { params, body }) => addTeamMember(ctx, params.teamId, body),
  getMember: (ctx, { params }) => getTeamMember(ctx, params.teamId, params.userId),
  removeMember: (ctx, { params }) => removeTeamMember(ctx, params.teamId, params.userId),
});
