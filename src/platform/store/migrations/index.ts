import { migration as initial } from './0001_initial.js';
import { migration as eventProjects } from './0002_event_projects.js';
import { migration as sealSecrets } from './0003_seal_secrets.js';
import { migration as ssoSignIn } from './0004_sso_sign_in.js';
import { migration as outboxDelivery } from './0005_outbox_delivery.js';
import { migration as memberIndexes } from './0006_member_indexes.js';
import { migration as memberCounts } from './0007_member_counts.js';
import { migration as eventProjectsTrigger } from './0008_event_projects_trigger.js';
import type { Migration } from './migration.js';

export type { Migration, MigrationEnv } from './migration.js';

/**
 * The schema's history, oldest first: migration N takes `PRAGMA user_version` from N-1 to N. A released migration is
 * frozen — its file is what every database of that release ran (test/platform/migrations.test.ts pins each one's
 * hash) — so a schema change is always a new migration, in a file of its own, appended here.
 */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  eventProjects,
  sealSecrets,
  ssoSignIn,
  outboxDelivery,
  memberIndexes,
  memberCounts,
  eventProjectsTrigger,
];

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
