// SCIM Groups ↔ the organization's teams (docs/scim.md): the group's id is the team's, displayName its name,
// members[].value the ids of the members in it.

import { nameSchema } from '../../contract/common.js';
import type { Team } from '../../contract/teams.js';
import type { Ctx } from '../context.js';
import type { ScimExtra } from '../store/scim.js';
import { asDocument, type Doc, field } from './document.js';
import { badRequest, ScimError } from './errors.js';
import { matches, parseFilter } from './filter.js';
import { applyAll, parsePatch } from './patch.js';
import { listResponse, pageResponse, paging, scimBase } from './users.js';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** How many members one group's write may name. */
const MAX_MEMBERS = 10_000;

function groupResource(ctx: Ctx, team: Team, memberIds: string[] | undefined, extra: ScimExtra | undefined): Doc {
  const base = scimBase(ctx);
  return {
    schemas: [GROUP_SCHEMA],
    id: team.id,
    ...(extra?.externalId && { externalId: extra.externalId }),
    displayName: team.name,
    ...(memberIds && { members: memberIds.map((value) => ({ value, $ref: `${base}/Users/${value}`, type: 'User' })) }),
    meta: {
      resourceType: 'Group',
      created: team.createdAt,
      lastModified: team.createdAt,
      location: `${base}/Groups/${team.id}`,
    },
  };
}

/** Whether the query leaves members out (`excludedAttributes=members`). */
function withoutMembers(query: URLSearchParams): boolean {
  const excluded = query.get('excludedAttributes') ?? '';
  return excluded.split(',').some((a) => a.trim().toLowerCase() === 'members');
}

async function team(ctx: Ctx, id: string): Promise<Team> {
  const found = await ctx.stores.teams.get(ctx.principal.orgId, id);
  if (!found) throw new ScimError(404, undefined, `no group ${id}`);
  return found;
}

/**
 * `GET /Groups`: a page of the teams, oldest first, or those a filter matches (filtered in memory over the teams). The
 * members are read, in one query, when the answer shows them or the filter asks about them.
 */
export async function listGroups(ctx: Ctx, query: URLSearchParams) {
  const orgId = ctx.principal.orgId;
  const filterText = query.get('filter');
  const filter = filterText ? parseFilter(filterText) : undefined;
  const { startIndex, count } = paging(query);
  const skipMembers = withoutMembers(query);
  // The teams as resources, with what SCIM said of them and their members: read for these teams, or for all
  // (`everyone`) at once.
  const resourcesOf = async (teams: Team[], readMembers: boolean, everyone = false): Promise<Doc[]> => {
    const ids = everyone ? undefined : teams.map((t) => t.id);
    const extras = await ctx.stores.scim.extras(orgId, 'Group', ids);
    const members = readMembers ? await ctx.stores.teams.memberIdsOf(orgId, ids) : undefined;
    return teams.map((t) => groupResource(ctx, t, members && (members.get(t.id) ?? []), extras.get(t.id)));
  };
  if (!filter) {
    // An identity provider's full import walks every page: each reads its own teams, not all of them.
    const page = count === 0 ? [] : await ctx.stores.teams.slice(orgId, startIndex - 1, count);
    return pageResponse(await resourcesOf(page, !skipMembers), await ctx.stores.teams.count(orgId), startIndex);
  }
  // Members are read when the answer shows them, or when the filter asks about them (then left out if asked to be).
  const resources = await resourcesOf(
    await ctx.stores.teams.all(orgId),
    !skipMembers || /members/i.test(filterText ?? ''),
    true,
  );
  const found = resources.filter((r) => matches(filter, r));
  if (skipMembers) for (const r of found) delete r.members;
  return listResponse(found, startIndex, count);
}

/** `GET /Groups/{id}`. */
export async function getGroup(ctx: Ctx, id: string, query: URLSearchParams) {
  const orgId = ctx.principal.orgId;
  const t = await team(ctx, id);
  const members = withoutMembers(query) ? undefined : await ctx.stores.teams.memberIds(orgId, id);
  return groupResource(ctx, t, members, await ctx.stores.scim.extra(orgId, 'Group', id));
}

interface MappedGroup {
  name: string;
  externalId: string | null;
  members: string[] | undefined;
}

function mapGroup(doc: Doc): MappedGroup {
  const get = (name: string) => field(doc, name);
  const name = nameSchema.safeParse(get('displayName'));
  if (!name.success) throw badRequest('invalidValue', 'displayName must be the name of the group (1–100 characters)');
  const externalId = get('externalId');
  const members = get('members');
  if (members !== undefined && !Array.isArray(members)) throw badRequest('invalidValue', 'members must be a list');
  if (Array.isArray(members) && members.length > MAX_MEMBERS)
    throw badRequest('tooMany', `at most ${MAX_MEMBERS} members`);
  return {
    name: name.data,
    externalId: typeof externalId === 'string' && externalId !== '' ? externalId.slice(0, 200) : null,
    members: Array.isArray(members)
      ? [...new Set(members.map((m) => String((m as Doc | null)?.value ?? m)))]
      : undefined,
  };
}

/** Sets a team's members to `wanted`, each of whom must be a member of the organization (`400 invalidValue`). */
async function setMembers(ctx: Ctx, teamId: string, wanted: string[]): Promise<void> {
  const orgId = ctx.principal.orgId;
  const held = new Set(await ctx.stores.teams.memberIds(orgId, teamId));
  const want = new Set(wanted);
  const now = ctx.now();
  for (const userId of want) {
    if (held.has(userId)) continue;
    if (!(await ctx.stores.users.get(orgId, userId))) {
      throw badRequest('invalidValue', `members: ${userId} is no user of this organization`);
    }
    await ctx.stores.teams.addMember(orgId, teamId, userId, now);
    await ctx.emit('team.member_added', { type: 'team', id: teamId }, { userId, via: 'scim' });
  }
  for (const userId of held) {
    if (want.has(userId)) continue;
    await ctx.stores.teams.removeMember(orgId, teamId, userId);
    await ctx.emit('team.member_removed', { type: 'team', id: teamId }, { userId, via: 'scim' });
  }
}

async function nameFree(ctx: Ctx, name: string, id?: string): Promise<void> {
  const taken = await ctx.stores.teams.byName(ctx.principal.orgId, name);
  if (taken && taken.id !== id) throw new ScimError(409, 'uniqueness', `a group named "${taken.name}" exists already`);
}

/** `POST /Groups`: a team, with its members. */
export async function createGroup(ctx: Ctx, body: unknown) {
  const mapped = mapGroup(asDocument(body));
  const orgId = ctx.principal.orgId;
  return ctx.tx(async (ctx) => {
    await nameFree(ctx, mapped.name);
    const t: Team = { id: ctx.ids('team'), organizationId: orgId, name: mapped.name, createdAt: ctx.now() };
    await ctx.stores.teams.insert(t);
    await ctx.emit('team.created', { type: 'team', id: t.id }, { name: t.name, via: 'scim' });
    await setMembers(ctx, t.id, mapped.members ?? []);
    const extra = { externalId: mapped.externalId, attributes: {} };
    await ctx.stores.scim.setExtra(orgId, 'Group', t.id, extra);
    return groupResource(ctx, t, await ctx.stores.teams.memberIds(orgId, t.id), extra);
  });
}

/**
 * Writes a group's new document, made by `build` from the team as it is inside the transaction (so that concurrent
 * membership changes apply one after the other): its name, and its members when the document lists them (all of
 * them: those it leaves out leave the team).
 */
async function saveGroup(ctx: Ctx, id: string, build: (ctx: Ctx, t: Team) => Doc | Promise<Doc>) {
  const orgId = ctx.principal.orgId;
  return ctx.tx(async (ctx) => {
    let t = await team(ctx, id);
    const mapped = mapGroup(await build(ctx, t));
    if (mapped.name !== t.name) {
      await nameFree(ctx, mapped.name, id);
      await ctx.stores.teams.rename(orgId, id, mapped.name);
      await ctx.emit('team.renamed', { type: 'team', id }, { from: t.name, to: mapped.name, via: 'scim' });
      t = { ...t, name: mapped.name };
    }
    await setMembers(ctx, id, mapped.members ?? []);
    const extra = { externalId: mapped.externalId, attributes: {} };
    await ctx.stores.scim.setExtra(orgId, 'Group', id, extra);
    return groupResource(ctx, t, await ctx.stores.teams.memberIds(orgId, id), extra);
  });
}

/** `PUT /Groups/{id}`: name and members replaced. */
export async function replaceGroup(ctx: Ctx, id: string, body: unknown) {
  const doc = asDocument(body);
  return saveGroup(ctx, id, () => doc);
}

/** `PATCH /Groups/{id}`: rename, add or remove members (`members[value eq "…"]` paths too). */
export async function patchGroup(ctx: Ctx, id: string, body: unknown) {
  const ops = parsePatch(body);
  return saveGroup(ctx, id, async (ctx, t) => {
    const orgId = ctx.principal.orgId;
    const members = await ctx.stores.teams.memberIds(orgId, id);
    const doc = groupResource(ctx, t, members, await ctx.stores.scim.extra(orgId, 'Group', id));
    return applyAll(doc, ops);
  });
}

/** `DELETE /Groups/{id}`: the team goes; its members stay in the organization. */
export async function deleteGroup(ctx: Ctx, id: string): Promise<void> {
  const orgId = ctx.principal.orgId;
  await ctx.tx(async (ctx) => {
    const t = await team(ctx, id);
    await ctx.stores.teams.remove(orgId, id);
    await ctx.stores.invitations.dropTeam(orgId, id);
    await ctx.stores.scim.dropExtra(orgId, 'Group', id);
    await ctx.emit('team.deleted', { type: 'team', id }, { name: t.name, via: 'scim' });
  });
}
