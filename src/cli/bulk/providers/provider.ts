import type { HashConfig } from '../../../contract/users.js';
import type { RecordReader } from '../import-rows.js';

/** The systems `plat users import --from` reads the exports of (docs/migrate.md). */
export const PROVIDER_NAMES = ['auth0', 'firebase', 'cognito', 'clerk'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** How a file lays its users out, told by its content (import-layout.ts). */
export type Layout = 'array' | 'lines' | 'csv' | 'member';

/** Another system's export: the layouts it comes in, and how its records become rows. */
export interface Provider {
  name: ProviderName;
  /** As messages name it. */
  title: string;
  /** The layouts of its exports; `member`: an array in an object, under {@link member}. */
  layouts: readonly Layout[];
  /** With the `member` layout: the array's name in the object around it (`users`, Firebase's). */
  member?: string;
  /** What plat reads of it, for a file in a layout it does not export. */
  reads: string;
  /** How its records become rows; `firebase` holds the run's Firebase scrypt parameters. */
  records(firebase: FirebaseParameters): RecordReader;
}

/**
 * The Firebase project's scrypt parameters for a run (docs/api.md, "Imported passwords": the batch's `hashConfig`):
 * given by the flags the Firebase CLI names (`--hash-key`, `--salt-separator`, `--rounds`, `--mem-cost`), or — for a
 * Clerk export of users Clerk had imported from Firebase, whose `scrypt_firebase` digests carry them — those of the
 * first such row.
 * A batch is sent with them when one of its items has a Firebase hash. They are a secret of that project: never shown.
 */
export class FirebaseParameters {
  private adoptedAt: number | undefined;

  constructor(private given?: HashConfig) {}

  /** The parameters, when known. */
  get config(): HashConfig | undefined {
    return this.given;
  }

  /**
   * A row's parameters (at `line`): the first row's are adopted, and a later row's must be the same — a batch has one
   * `hashConfig` — else why that row fails.
   */
  agree(config: HashConfig, line: number): string | undefined {
    if (!this.given) {
      [this.given, this.adoptedAt] = [config, line];
      return undefined;
    }
    const same = (Object.keys(config) as (keyof HashConfig)[]).every((k) => config[k] === this.given?.[k]);
    if (same) return undefined;
    const where = this.adoptedAt === undefined ? 'the flags' : `line ${this.adoptedAt}`;
    return `its Firebase hash parameters differ from those of ${where}: import such rows in a run of their own`;
  }
}
