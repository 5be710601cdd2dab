import type { PlatformClient } from '../../client/client.js';
import { pages } from '../../client/client.js';
import type { Team } from '../../contract/teams.js';
import type { ListedUser } from '../../contract/users.js';

/** Each user's teams, as an export writes them. */
export interface TeamsByUser {
  /**
   * The teams of a user listed with `expand=teams`, by name (by id when the name cannot stand for it), A to Z; a team
   * made after the teams were read is written by its id, which an import takes as well.
   */
  of(user: ListedUser): string[];
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
 * Reads every team of the organization (a page holds a hundred), to write users' teams — which the users pages carry
 * as ids (`expand=teams`) — by name.
 */
export async function teamsByUser(client: PlatformClient, orgId: string): Promise<TeamsByUser> {
  const teams: Team[] = [];
  for await (const page of pages((q) => client.teams.list(orgId, q), {})) teams.push(...page);
  const labels = teamLabels(teams);
  const labelOf = new Map(teams.map((t, i) => [t.id, labels[i] as string]));
  const none: string[] = [];
  return {
    teams: teams.length,
    of: (user) => (user.teams?.length ? user.teams.map((id) => labelOf.get(id) ?? id) : none),
  };
}
