import type { Team, TeamMember } from '../../contract/teams.js';
import type { Db } from './db.js';
import { type Listing, type ListSpec, runList, type SortPosition } from './paging.js';

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
export function teamsStore(db: Db) {
  const get = db.prepare<[string, string], Row>('SELECT * FROM teams WHERE org_id = ? AND id = ?');
  const byName = db.prepare<[string, string], Row>('SELECT * FROM teams WHERE org_id = ? AND name = ? COLLATE NOCASE');
  const insert = db.prepare(
    'INSERT INTO teams (id, org_id, name, created_at) VALUES (@id, @organizationId, @name, @createdAt)',
  );
  const removeMembers = db.prepare('DELETE FROM team_members WHERE team_id = ?');
  const remove = db.prepare('DELETE FROM teams WHERE org_id = ? AND id = ?');
  const addMember = db.prepare(
    'INSERT OR IGNORE INTO team_members (team_id, org_id, user_id, created_at) VALUES (?, ?, ?, ?)',
  );
  const removeUser = db.prepare('DELETE FROM team_members WHERE org_id = ? AND user_id = ?');
  const teamsOf = db.prepare<[string, string], { team_id: string }>(
    'SELECT team_id FROM team_members WHERE org_id = ? AND user_id = ? ORDER BY team_id',
  );
  const teamsOfUsers = db.prepare<[string, string], { user_id: string; team_id: string }>(
    `SELECT m.user_id, m.team_id FROM team_members m JOIN teams t ON t.id = m.team_id AND t.org_id = m.org_id
     WHERE m.org_id = ? AND m.user_id IN (SELECT value FROM json_each(?)) ORDER BY t.name COLLATE NOCASE, t.id`,
  );
  const member = db.prepare<[string, string, string], MemberRow>(
    `SELECT t.user_id, t.created_at, m.name, m.email, m.avatar_url
     FROM team_members t JOIN org_users m ON m.org_id = t.org_id AND m.user_id = t.user_id
     WHERE t.org_id = ? AND t.team_id = ? AND t.user_id = ?`,
  );
  const removeMember = db.prepare('DELETE FROM team_members WHERE org_id = ? AND team_id = ? AND user_id = ?');
  return {
    /** One member of the team, or undefined. */
    member: (orgId: string, teamId: string, userId: string) => {
      const r = member.get(orgId, teamId, userId);
      return r && toMember(r);
    },
    /** Takes the user out of one team; false when they were not in it. */
    removeMember: (orgId: string, teamId: string, userId: string) =>
      removeMember.run(orgId, teamId, userId).changes === 1,
    /** The team of `orgId`, or undefined (another organization's is undefined too). */
    get: (orgId: string, id: string) => {
      const r = get.get(orgId, id);
      return r && toTeam(r);
    },
    /** The team of `orgId` with this name, compared case-insensitively. */
    byName: (orgId: string, name: string) => {
      const r = byName.get(orgId, name);
      return r && toTeam(r);
    },
    insert: (t: Team) => void insert.run(t),
    /** Deletes the team and its memberships. */
    remove: (orgId: string, id: string) => {
      removeMembers.run(id);
      remove.run(orgId, id);
    },
    /** Puts a member of the organization in the team (no-op when already there). */
    addMember: (orgId: string, teamId: string, userId: string, now: string) =>
      void addMember.run(teamId, orgId, userId, now),
    /** The ids of the teams the user is in, sorted. */
    teamIdsOf: (orgId: string, userId: string) => teamsOf.all(orgId, userId).map((r) => r.team_id),
    /** The ids of each user's teams (users in none are left out), A to Z by team name: one read for a page of users. */
    teamIdsOfUsers: (orgId: string, userIds: readonly string[]) => {
      const teams = new Map<string, string[]>();
      for (const r of teamsOfUsers.all(orgId, JSON.stringify(userIds))) {
        const list = teams.get(r.user_id);
        if (list) list.push(r.team_id);
        else teams.set(r.user_id, [r.team_id]);
      }
      return teams;
    },
    /** Takes the user out of every team of the organization. */
    removeUser: (orgId: string, userId: string) => void removeUser.run(orgId, userId),
    /** Teams of the organization by name (case-insensitive), A to Z. */
    list: (orgId: string, listing: Listing, next: (p: SortPosition) => string) => {
      const spec: ListSpec = {
        from: 'FROM teams',
        columns: '*',
        where: ['org_id = ?'],
        params: [orgId],
        sort: { expr: 'name COLLATE NOCASE', key: 'name', nullable: false },
        order: 'asc',
        id: { expr: 'id', key: 'id' },
      };
      const { rows, pagination } = runList<Row>(db, spec, listing, next);
      return { data: rows.map(toTeam), pagination };
    },
    /** Members of the team with their organization profile, earliest joined first. */
    members: (orgId: string, teamId: string, listing: Listing, next: (p: SortPosition) => string) => {
      const spec: ListSpec = {
        from: 'FROM team_members t JOIN org_users m ON m.org_id = t.org_id AND m.user_id = t.user_id',
        columns: 't.user_id, t.created_at, m.name, m.email, m.avatar_url',
        where: ['t.org_id = ?', 't.team_id = ?'],
        params: [orgId, teamId],
        sort: { expr: 't.created_at', key: 'created_at', nullable: false },
        order: 'asc',
        id: { expr: 't.user_id', key: 'user_id' },
      };
      const { rows, pagination } = runList<MemberRow>(db, spec, listing, next);
      return { data: rows.map(toMember), pagination };
    },
  };
}
