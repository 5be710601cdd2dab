import type { PlatformClient } from '../../client/client.js';
import type { Team } from '../../contract/teams.js';
import { pagesOf } from './export-pages.js';

/** Teams whose members are read at once: a remote instance answers several while one is on the way. */
const CONCURRENCY = 4;

/** Each user's teams, as an export writes them. */
export interface TeamsByUser {
  /** The teams of one user by name (by id when the name cannot stand for it), in the teams' order (A to Z); [] if none. */
  of(userId: string): string[];
  /** How many teams the organization has. */
  readonly teams: number;
}

/**
 * How a team is written: by name, which reads the same in another platform (in CSV a `;` in it escaped, see
 * cells.ts), unless the import would misread the name — one that is another team's id (import accepts either) —
 * then by id.
 */
export function teamLabels(teams: readonly Team[]): string[] {
  const ids = new Set(teams.map((t) => t.id));
  return teams.map((t) => (ids.has(t.name) ? t.id : t.name));
}

/**
 * Reads every team of the organization and every member of each, all pages, into a map from user id to teams. The
 * map holds one small array of team numbers per member, never users' records: what it costs grows with memberships, which the API gives only team by team. `onTeam` gets the count of teams read.
 */
export async function teamsByUser(
  client: PlatformClient,
  orgId: string,
  opts: { onTeam?: (done: number, total: number) => void },
): Promise<TeamsByUser> {
  const teams: Team[] = [];
  for await (const page of pagesOf((q) => client.teams.list(orgId, q), {})) teams.push(...page);
  const labels = teamLabels(teams);
  const memberships = new Map<string, number[]>();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < teams.length) {
      const index = next++;
      for await (const page of pagesOf((q) => client.teams.members((teams[index] as Team).id, q), {})) {
        for (const { user } of page) {
          const list = memberships.get(user.id);
          if (list) list.push(index);
          else memberships.set(user.id, [index]);
        }
      }
      opts.onTeam?.(++done, teams.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, teams.length) }, worker));
  const none: string[] = [];
  return {
    teams: teams.length,
    of: (userId) => {
      const list = memberships.get(userId);
      // Workers finish teams in any order; the teams are listed A to Z, and so are each user's.
      return list ? list.sort((a, b) => a - b).map((i) => labels[i] as string) : none;
    },
  };
}
