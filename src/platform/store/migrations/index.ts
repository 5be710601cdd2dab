import { migration as initial } from './0001_initial.sqlite.js';
import { migration as eventProjects } from './0002_event_projects.sqlite.js';
import { migration as sealSecrets } from './0003_seal_secrets.sqlite.js';
import { migration as ssoSignIn } from './0004_sso_sign_in.sqlite.js';
import { migration as outboxDelivery } from './0005_outbox_delivery.sqlite.js';
import { migration as memberIndexes } from './0006_member_indexes.sqlite.js';
import { migration as pgBaseline } from './0007_member_counts.postgres.js';
import { migration as memberCounts } from './0007_member_counts.sqlite.js';
import { migration as pgEventProjectsTrigger } from './0008_event_projects_trigger.postgres.js';
import { migration as eventProjectsTrigger } from './0008_event_projects_trigger.sqlite.js';
import { migration as pgSealOutbox } from './0009_seal_outbox.postgres.js';
import { migration as sealOutbox } from './0009_seal_outbox.sqlite.js';
import { migration as pgDomains } from './0010_domains.postgres.js';
import { migration as domains } from './0010_domains.sqlite.js';
import { migration as pgScim } from './0011_scim.postgres.js';
import { migration as scim } from './0011_scim.sqlite.js';
import { migration as pgImportedPasswords } from './0012_imported_passwords.postgres.js';
import { migration as importedPasswords } from './0012_imported_passwords.sqlite.js';
import { migration as pgWebhooks } from './0013_webhooks.postgres.js';
import { migration as webhooks } from './0013_webhooks.sqlite.js';
import { migration as pgMfa } from './0014_mfa.postgres.js';
import { migration as mfa } from './0014_mfa.sqlite.js';
import type { Migration, PgMigration } from './migration.js';

export type { Migration, MigrationEnv, PgMigration } from './migration.js';

/*
 * The schema's history, one id per change for both dialects: `NNNN_name.sqlite.ts` and `NNNN_name.postgres.ts` side by
 * side in this one folder, rather than a folder per id, so that a listing shows each change's files together and a
 * dialect with nothing to do at an id has nothing there (PostgreSQL at 1 to 6, which its baseline at 7 covers), not an
 * empty folder. Migration N takes a database from schema version N-1 (or, on PostgreSQL, from before its baseline) to
 * N; both dialects record the same number for the same schema. A released migration is frozen — its file is what
 * every database of that release ran: test/platform/migrations.test.ts holds SQLite's against databases the releases
 * made — so a change is always a new id, with a file for each dialect, appended to both lists.
 */

/** SQLite's migrations, oldest first: migration N takes `PRAGMA user_version` from N-1 to N. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  initial,
  eventProjects,
  sealSecrets,
  ssoSignIn,
  outboxDelivery,
  memberIndexes,
  memberCounts,
  eventProjectsTrigger,
  sealOutbox,
  domains,
  scim,
  importedPasswords,
  webhooks,
  mfa,
];

/**
 * PostgreSQL's migrations, oldest first, from its baseline: the schema of id 7 at once (PostgreSQL came after 0.2.0,
 * so no database of it was ever older); from there one per id, as SQLite's.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  pgBaseline,
  pgEventProjectsTrigger,
  pgSealOutbox,
  pgDomains,
  pgScim,
  pgImportedPasswords,
  pgWebhooks,
  pgMfa,
];

/** The schema version this code reads and writes, on either dialect. */
export const SCHEMA_VERSION = SQLITE_MIGRATIONS.length;

/**
 * PostgreSQL's `schema_version` as plat recorded it before both dialects shared one numbering, when PostgreSQL had a
 * history of its own (never released): its version 1 was the schema of id 8. No database of the shared numbering
 * records a version below the baseline's 7, so a smaller number is always one of these.
 */
export const PG_EARLIER_NUMBERING: Readonly<Record<number, number>> = { 1: 8 };
