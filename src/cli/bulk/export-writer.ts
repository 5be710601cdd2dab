import type { ListedUser } from '../../contract/users.js';
import type { Target } from './export-target.js';
import type { TeamsByUser } from './export-teams.js';

/** Writes users in one format, page by page as they arrive. */
export interface UsersWriter {
  page(users: readonly ListedUser[]): Promise<void>;
  /** Writes what is left; returns warnings about what the format could not say. */
  end(): Promise<string[]>;
  /** Releases what it holds (whether or not it ended). */
  close(): void;
}

/**
 * Users as JSON (an array, as `users list --all --json` prints it) or JSON lines (one compact record a line): each
 * record as the API gives it, plus `teams` (their names; the id of one named like another team's id). Values as they
 * are: nothing is neutralised.
 */
export function jsonWriter(target: Target, teams: TeamsByUser, lines: boolean): UsersWriter {
  let count = 0;
  const withTeams = (user: ListedUser) => ({ ...user, teams: teams.of(user) });
  return {
    page: async (users) => {
      let text = '';
      for (const user of users) {
        if (lines) text += `${JSON.stringify(withTeams(user))}\n`;
        else {
          // As JSON.stringify(array, null, 2) writes an element; a JSON string never holds a raw newline.
          text += `${count === 0 ? '[\n  ' : ',\n  '}${JSON.stringify(withTeams(user), null, 2).replaceAll('\n', '\n  ')}`;
        }
        count++;
      }
      await target.write(text);
    },
    end: async () => {
      if (!lines) await target.write(count === 0 ? '[]\n' : '\n]\n');
      return [];
    },
    close: () => {},
  };
}
