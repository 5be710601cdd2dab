import type { List, PagingQuery } from '../../contract/common.js';
import type { Team, TeamCreate, TeamMember, TeamMemberAdd } from '../../contract/teams.js';
import type { Ctx } from '../context.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { resolveListing } from '../store/paging.js';

/** `GET /organizations/{orgId}/teams`: by name, A to Z; offset or cursor paging. */
export async function listTeams(ctx: Ctx, orgId: string, q: PagingQuery): Promise<List<Team>> {
  const scope = `teams:${orgId}`;
  const listing = resolveListing(ctx.cursors, scope, q, {}, {});
  return ctx.stores.teams.list(orgId, listing, (pos) => ctx.cursors.encode(scope, listing.filters, pos));
}

/** `POST /organizations/{orgId}/teams`: names are unique in the organization, case-insensitively (`409`). */
export async function createTeam(ctx: Ctx, orgId: string, input: TeamCreate): Promise<Team> {
  return ctx.tx(async (ctx) => {
    const taken = await ctx.stores.teams.byName(orgId, input.name);
    if (taken) throw conflict(`a team named "${taken.name}" already exists in this organization`);
    const team: Team = { id: ctx.ids('team'), organizationId: orgId, name: input.name, createdAt: ctx.now() };
    await ctx.stores.teams.insert(team);
    await ctx.emit('team.created', { type: 'team', id: team.id }, { name: team.name });
    return team;
  });
}

/** A team of the acting organization, or `404`. */
export async function loadTeam(ctx: Ctx, teamId: string): Promise<Team> {
  const team = await ctx.stores.teams.get(ctx.principal.orgId, teamId);
  if (!team) throw notFound('team');
  return team;
}

export function getTeam(ctx: Ctx, teamId: string): Promise<Team> {
  return loadTeam(ctx, teamId);
}

/** `DELETE /teams/{teamId}`: removes the team, its memberships, and its id from invitations' `teams`. */
export async function deleteTeam(ctx: Ctx, teamId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const team = await loadTeam(ctx, teamId);
    const orgId = ctx.principal.orgId;
    await ctx.stores.teams.remove(orgId, teamId);
    await ctx.stores.invitations.dropTeam(orgId, teamId);
    await ctx.stores.scim.dropExtra(orgId, 'Group', teamId);
    await ctx.emit('team.deleted', { type: 'team', id: teamId }, { name: team.name });
  });
}

/** `GET /teams/{teamId}/members`: earliest joined first; offset or cursor paging. */
export async function listTeamMembers(ctx: Ctx, teamId: string, q: PagingQuery): Promise<List<TeamMember>> {
  await loadTeam(ctx, teamId);
  const scope = `team-members:${teamId}`;
  const listing = resolveListing(ctx.cursors, scope, q, {}, {});
  return ctx.stores.teams.members(ctx.principal.orgId, teamId, listing, (pos) =>
    ctx.cursors.encode(scope, listing.filters, pos),
  );
}

/** `POST /teams/{teamId}/members`: puts a user of the organization in the team (`409` when already there). */
export async function addTeamMember(ctx: Ctx, teamId: string, input: TeamMemberAdd): Promise<TeamMember> {
  return ctx.tx(async (ctx) => {
    await loadTeam(ctx, teamId);
    const orgId = ctx.principal.orgId;
    if (!(await ctx.stores.users.get(orgId, input.userId))) {
      throw invalidField('userId', 'no such user in this organization');
    }
    if (await ctx.stores.teams.member(orgId, teamId, input.userId)) throw conflict('the user is already in this team');
    await ctx.stores.teams.addMember(orgId, teamId, input.userId, ctx.now());
    await ctx.emit('team.member_added', { type: 'team', id: teamId }, { userId: input.userId });
    return (await ctx.stores.teams.member(orgId, teamId, input.userId)) as TeamMember;
  });
}

/** `GET /teams/{teamId}/members/{userId}`: one member of the team, or `404`. */
export async function getTeamMember(ctx: Ctx, teamId: string, userId: string): Promise<TeamMember> {
  await loadTeam(ctx, teamId);
  const member = await ctx.stores.teams.member(ctx.principal.orgId, teamId, userId);
  if (!member) throw notFound('team member');
  return member;
}

/** `DELETE /teams/{teamId}/members/{userId}`: takes a user out of the team. */
export async function removeTeamMember(ctx: Ctx, teamId: string, userId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    await loadTeam(ctx, teamId);
    if (!(await ctx.stores.teams.removeMember(ctx.principal.orgId, teamId, userId))) throw notFound('team member');
    await ctx.emit('team.member_removed', { type: 'team', id: teamId }, { userId });
  });
}
