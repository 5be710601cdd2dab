import type { List, PagingQuery } from '../../contract/common.js';
import type { Team, TeamCreate, TeamMember, TeamMemberAdd } from '../../contract/teams.js';
import type { Ctx } from '../context.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { resolveListing } from '../store/paging.js';
import { requireOrg, requirePermission } from './access.js';

/** `GET /organizations/{orgId}/teams`: by name, A to Z; offset or cursor paging. */
export function listTeams(ctx: Ctx, orgId: string, q: PagingQuery): List<Team> {
  requireOrg(ctx, orgId);
  requirePermission(ctx, 'users:read');
  const scope = `teams:${orgId}`;
  const listing = resolveListing(ctx.cursors, scope, q, {}, {});
  return ctx.stores.teams.list(orgId, listing, (pos) => ctx.cursors.encode(scope, listing.filters, pos));
}

/** `POST /organizations/{orgId}/teams`: names are unique in the organization, case-insensitively (`409`). */
export function createTeam(ctx: Ctx, orgId: string, input: TeamCreate): Team {
  return ctx.tx(() => {
    requireOrg(ctx, orgId);
    requirePermission(ctx, 'users:write');
    const taken = ctx.stores.teams.byName(orgId, input.name);
    if (taken) throw conflict(`a team named "${taken.name}" already exists in this organization`);
    const team: Team = { id: ctx.ids('team'), organizationId: orgId, name: input.name, createdAt: ctx.now() };
    ctx.stores.teams.insert(team);
    ctx.emit('team.created', { type: 'team', id: team.id }, { name: team.name });
    return team;
  });
}

/** A team of the acting organization, or `404`. */
export function loadTeam(ctx: Ctx, teamId: string): Team {
  const team = ctx.stores.teams.get(ctx.principal.orgId, teamId);
  if (!team) throw notFound('team');
  return team;
}

export function getTeam(ctx: Ctx, teamId: string): Team {
  const team = loadTeam(ctx, teamId);
  requirePermission(ctx, 'users:read');
  return team;
}

/** `DELETE /teams/{teamId}`: removes the team, its memberships, and its id from invitations' `teams`. */
export function deleteTeam(ctx: Ctx, teamId: string): void {
  ctx.tx(() => {
    const team = loadTeam(ctx, teamId);
    requirePermission(ctx, 'users:write');
    const orgId = ctx.principal.orgId;
    ctx.stores.teams.remove(orgId, teamId);
    ctx.stores.invitations.dropTeam(orgId, teamId);
    ctx.emit('team.deleted', { type: 'team', id: teamId }, { name: team.name });
  });
}

/** `GET /teams/{teamId}/members`: earliest joined first; offset or cursor paging. */
export function listTeamMembers(ctx: Ctx, teamId: string, q: PagingQuery): List<TeamMember> {
  loadTeam(ctx, teamId);
  requirePermission(ctx, 'users:read');
  const scope = `team-members:${teamId}`;
  const listing = resolveListing(ctx.cursors, scope, q, {}, {});
  return ctx.stores.teams.members(ctx.principal.orgId, teamId, listing, (pos) =>
    ctx.cursors.encode(scope, listing.filters, pos),
  );
}

/** `POST /teams/{teamId}/members`: puts a user of the organization in the team (`409` when already there). */
export function addTeamMember(ctx: Ctx, teamId: string, input: TeamMemberAdd): TeamMember {
  return ctx.tx(() => {
    loadTeam(ctx, teamId);
    requirePermission(ctx, 'users:write');
    const orgId = ctx.principal.orgId;
    if (!ctx.stores.users.get(orgId, input.userId)) throw invalidField('userId', 'no such user in this organization');
    if (ctx.stores.teams.member(orgId, teamId, input.userId)) throw conflict('the user is already in this team');
    ctx.stores.teams.addMember(orgId, teamId, input.userId, ctx.now());
    ctx.emit('team.member_added', { type: 'team', id: teamId }, { userId: input.userId });
    return ctx.stores.teams.member(orgId, teamId, input.userId) as TeamMember;
  });
}

/** `DELETE /teams/{teamId}/members/{userId}`: takes a user out of the team. */
export function removeTeamMember(ctx: Ctx, teamId: string, userId: string): void {
  ctx.tx(() => {
    loadTeam(ctx, teamId);
    requirePermission(ctx, 'users:write');
    if (!ctx.stores.teams.removeMember(ctx.principal.orgId, teamId, userId)) throw notFound('team member');
    ctx.emit('team.member_removed', { type: 'team', id: teamId }, { userId });
  });
}
