import { sql } from 'kysely';
import type { Team, TeamMember } from '../../contract/teams.js';
import { jsonStrings, NOCASE, nocaseEquals } from './dialects.js';
import { type Listing, type ListSpec, nocaseSort, runList, type SortPosition, withParams } from './paging.js';
import type { Q, StoreEnv } from './sql.js';

type Row = { id: string; org_id: string; name: string; created_at: string };
type MemberRow = {
  user_id: string;
  name: string | null;
  email: string;
  avatar_url: string | null;
  created_at: string;
};

function toTeam(r: Row): Team {
  return { id: r.id, organizationId: r.org_id, name: r.name, createdAt: r.created_at };
}

function toMember(r: MemberRow): TeamMember {
  return {
    user: { id: r.user_id, name: r.name, email: r.email, avatarUrl: r.avatar_url },
    createdAt: r.created_at,
  };
}

/** Teams and their members: their SQL in one place. */
export function teamsStore(q: Q, env: StoreEnv) {
  const { dialect } = env.sql;
  /** The organization's teams, oldest first. */
  const oldestFirst = (orgId: string) =>
    q.selectFrom('teams').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id');
  /**
   * The ids of the members of each of `teamIds` (of every team of the organization without it), earliest added
   * first; teams without members are left out.
   */
  const memberIdsOf = async (orgId: string, teamIds?: readonly string[]): Promise<Map<string, string[]>> => {
    const members = new Map<string, string[]>();
    if (teamIds?.length === 0) return members;
    let query = q
      .selectFrom('team_members')
      .select(['team_id', 'user_id'])
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .orderBy('user_id');
    if (teamIds) query = query.where('team_id', 'in', teamIds);
    const rows = await query.execute();
    for (const r of rows) {
      const ids = members.get(r.team_id);
      if (ids) ids.push(r.user_id);
      else members.set(r.team_id, [r.user_id]);
    }
    return members;
  };
  return {
    /** One member of the team, or undefined. */
    member: async (orgId: string, teamId: string, userId: string): Promise<TeamMember | undefined> => {
      const r = await q
        .selectFrom('team_members as t')
        .innerJoin('org_users as m', (join) =>
          join.onRef('m.org_id', '=', 't.org_id').onRef('m.user_id', '=', 't.user_id'),
        )
        .select(['t.user_id', 't.created_at', 'm.name', 'm.email', 'm.avatar_url'])
        .where('t.org_id', '=', orgId)
        .where('t.team_id', '=', teamId)
        .where('t.user_id', '=', userId)
        .executeTakeFirst();
      return r && toMember(r);
    },
    /** Takes the user out of one team; false when they were not in it. */
    removeMember: async (orgId: string, teamId: string, userId: string): Promise<boolean> => {
      const r = await q
        .deleteFrom('team_members')
        .where('org_id', '=', orgId)
        .where('team_id', '=', teamId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(r.numDeletedRows) === 1;
    },
    /** Every team of the organization, oldest first (SCIM's filtered lists read them all). */
    all: async (orgId: string): Promise<Team[]> => (await oldestFirst(orgId).execute()).map(toTeam),
    /** `limit` teams from the `offset`-th on, oldest first (SCIM's pages of an unfiltered list). */
    slice: async (orgId: string, offset: number, limit: number): Promise<Team[]> =>
      (await oldestFirst(orgId).limit(limit).offset(offset).execute()).map(toTeam),
    /** How many teams the organization has. */
    count: async (orgId: string): Promise<number> => {
      const r = await q
        .selectFrom('teams')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      return Number(r?.n ?? 0);
    },
    memberIdsOf,
    /** The ids of a team's members, earliest added first. */
    memberIds: async (orgId: string, teamId: string): Promise<string[]> =>
      (await memberIdsOf(orgId, [teamId])).get(teamId) ?? [],
    /** Renames a team. */
    rename: async (orgId: string, id: string, name: string): Promise<void> => {
      await q.updateTable('teams').set({ name }).where('org_id', '=', orgId).where('id', '=', id).execute();
    },
    /** The team of `orgId`, or undefined (another organization's is undefined too). */
    get: async (orgId: string, id: string): Promise<Team | undefined> => {
      const r = await q
        .selectFrom('teams')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && toTeam(r);
    },
    /** The team of `orgId` with this name, compared case-insensitively. */
    byName: async (orgId: string, name: string): Promise<Team | undefined> => {
      const r = await q
        .selectFrom('teams')
        .selectAll()
        .where('org_id', '=', orgId)
        // As the `teams_name` index compares (SQLite's NOCASE).
        .where(nocaseEquals(dialect, 'name', name))
        .executeTakeFirst();
      return r && toTeam(r);
    },
    insert: async (t: Team): Promise<void> => {
      await q
        .insertInto('teams')
        .values({ id: t.id, org_id: t.organizationId, name: t.name, created_at: t.createdAt })
        .execute();
    },
    /** Deletes the team and its memberships. */
    remove: async (orgId: string, id: string): Promise<void> => {
      await q.deleteFrom('team_members').where('team_id', '=', id).execute();
      await q.deleteFrom('teams').where('org_id', '=', orgId).where('id', '=', id).execute();
    },
    /** Puts a member of the organization in the team (no-op when already there). */
    addMember: async (orgId: string, teamId: string, userId: string, now: string): Promise<void> => {
      await q
        .insertInto('team_members')
        .values({ team_id: teamId, org_id: orgId, user_id: userId, created_at: now })
        .onConflict((oc) => oc.doNothing())
        .execute();
    },
    /** The ids of the teams the user is in, sorted. */
    teamIdsOf: async (orgId: string, userId: string): Promise<string[]> => {
      const rows = await q
        .selectFrom('team_members')
        .select('team_id')
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .orderBy('team_id')
        .execute();
      return rows.map((r) => r.team_id);
    },
    /** The ids of each user's teams (users in none are left out), A to Z by team name: one read for a page of users. */
    teamIdsOfUsers: async (orgId: string, userIds: readonly string[]): Promise<Map<string, string[]>> => {
      const rows = await q
        .selectFrom('team_members as m')
        .innerJoin('teams as t', (join) => join.onRef('t.id', '=', 'm.team_id').onRef('t.org_id', '=', 'm.org_id'))
        .select(['m.user_id', 'm.team_id'])
        .where('m.org_id', '=', orgId)
        // The ids as one JSON parameter: one statement whatever their number.
        .where(
          withParams<boolean>(`m.user_id IN (SELECT value FROM ${jsonStrings(dialect, '?')})`, [
            JSON.stringify(userIds),
          ]),
        )
        .orderBy(sql.raw(NOCASE[dialect].key('t.name')))
        .orderBy('t.id')
        .execute();
      const teams = new Map<string, string[]>();
      for (const r of rows) {
        const list = teams.get(r.user_id);
        if (list) list.push(r.team_id);
        else teams.set(r.user_id, [r.team_id]);
      }
      return teams;
    },
    /** Takes the user out of every team of the organization. */
    removeUser: async (orgId: string, userId: string): Promise<void> => {
      await q.deleteFrom('team_members').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
    },
    /** Teams of the organization by name (case-insensitive), A to Z. */
    list: async (orgId: string, listing: Listing, next: (p: SortPosition) => string) => {
      const spec: ListSpec = {
        from: 'FROM teams',
        columns: '*',
        where: ['org_id = ?'],
        params: [orgId],
        sort: nocaseSort(dialect, 'name', 'name', false),
        order: 'asc',
        id: { expr: 'id', key: 'id' },
      };
      const { rows, pagination } = await runList<Row>(q, spec, listing, next);
      return { data: rows.map(toTeam), pagination };
    },
    /** Members of the team with their organization profile, earliest joined first. */
    members: async (orgId: string, teamId: string, listing: Listing, next: (p: SortPosition) => string) => {
      const spec: ListSpec = {
        from: 'FROM team_members t JOIN org_users m ON m.org_id = t.org_id AND m.user_id = t.user_id',
        columns: 't.user_id, t.created_at, m.name, m.email, m.avatar_url',
        where: ['t.org_id = ?', 't.team_id = ?'],
        params: [orgId, teamId],
        sort: { expr: 't.created_at', key: 'created_at', nullable: false },
        order: 'asc',
        id: { expr: 't.user_id', key: 'user_id' },
      };
      const { rows, pagination } = await runList<MemberRow>(q, spec, listing, next);
      return { data: rows.map(toMember), pagination };
    },
  };
}
