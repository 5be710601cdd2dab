// `plat users import --create-teams` (docs/cli.md, "Importing users"): the teams a batch names that the organization
// does not have are created before the batch is sent — each once, whatever the batches or runs — or, in a dry run,
// listed and left out of what is sent, with the outcomes they would change corrected.
import { ApiError } from '../../client/errors.js';
import type { Team } from '../../contract/teams.js';
import type { UserBatchItem, UserBatchReply } from '../../contract/users.js';
import { InvalidValueError } from '../errors.js';
import { isId } from '../organization-slug.js';
import { quoted } from '../output/quote.js';

/** A team name as the platform compares it (SQLite's NOCASE: ASCII letters only), and as it trims it. */
const fold = (name: string) => name.trim().replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The teams of an import: those it found, and those it created (or in a dry run would create). */
export class TeamMaker {
  private known: Promise<Set<string>> | undefined;
  private readonly making = new Map<string, Promise<void>>();
  private readonly made: string[] = [];

  constructor(
    private readonly list: () => AsyncIterable<Team>,
    private readonly create: (name: string) => Promise<unknown>,
    private readonly dryRun: boolean,
  ) {}

  /** The teams created (in a dry run, that would be), A to Z. */
  get created(): string[] {
    return [...this.made].sort((a, b) => a.localeCompare(b));
  }

  /**
   * Creates the teams `items` name that the organization does not have, once each (a team being created for another
   * batch is waited for). Returns, in a dry run, the (folded) names of those that do not exist, to be left out.
   */
  async prepare(items: readonly UserBatchItem[]): Promise<Set<string>> {
    const named = new Map<string, string>();
    for (const item of items) for (const t of item.teams ?? []) if (!named.has(fold(t))) named.set(fold(t), t.trim());
    if (named.size === 0) return new Set();
    this.known ??= this.load();
    const known = await this.known;
    // A value shaped like a team id is never created: it names a team of another platform.
    const missing = [...named].filter(([f, name]) => !known.has(f) && !known.has(name) && !isId('team', name));
    await Promise.all(
      missing.map(([f, name]) => {
        let making = this.making.get(f);
        if (!making) {
          making = this.make(name);
          this.making.set(f, making);
        }
        return making;
      }),
    );
    return new Set(this.dryRun ? missing.map(([f]) => f) : []);
  }

  /** Every team's id and folded name, read once (a page holds a hundred). */
  private async load(): Promise<Set<string>> {
    const known = new Set<string>();
    for await (const team of this.list()) known.add(team.id).add(fold(team.name));
    return known;
  }

  private async make(name: string): Promise<void> {
    if (!this.dryRun) {
      try {
        await this.create(name);
      } catch (err) {
        // Made meanwhile by someone else: it is there, which is what the rows need.
        if (err instanceof ApiError && err.status === 409) return;
        if (err instanceof ApiError && (err.status === 400 || err.status === 422)) {
          throw new InvalidValueError(`cannot create the team ${quoted(name)}: ${err.message}`);
        }
        throw err;
      }
    }
    this.made.push(name);
  }
}

/** The items as a dry run sends them: without the teams that do not exist yet (`absent`, folded). */
export function withoutAbsent(items: readonly UserBatchItem[], absent: ReadonlySet<string>): UserBatchItem[] {
  return items.map((item) =>
    item.teams?.some((t) => absent.has(fold(t)))
      ? { ...item, teams: item.teams.filter((t) => !absent.has(fold(t))) }
      : item,
  );
}

/**
 * A dry run's reply as it would have been with the teams created: a user who exists cannot be in a team that does
 * not, so an item that named one and came out `unchanged` would have been `updated` (`upsert`), or a conflict.
 */
export function withAbsent(
  reply: UserBatchReply,
  items: readonly UserBatchItem[],
  absent: ReadonlySet<string>,
  mode: 'create' | 'upsert',
): UserBatchReply {
  const results = reply.results.map((r) => {
    if (r.outcome !== 'unchanged' || !items[r.index]?.teams?.some((t) => absent.has(fold(t)))) return r;
    if (mode === 'upsert') return { ...r, outcome: 'updated' as const };
    const message = `${r.email} is already a member with other teams: upsert to update it`;
    return { ...r, outcome: 'failed' as const, userId: null, error: { code: 'conflict' as const, message } };
  });
  return { ...reply, results };
}
