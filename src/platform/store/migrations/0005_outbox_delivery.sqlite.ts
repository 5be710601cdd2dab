import type { Migration } from './migration.js';

/**
 * Migration 5: the outbox is delivered by SMTP (`plat serve --smtp-url`), so each mail records its delivery.
 * - `attempts`: how many times a sender claimed it (a claim that never reported back, its process gone, counts too).
 * - `next_attempt_at`: when a sender may claim it next — its creation, a retry's time, or while a sender holds it the
 *   end of that sender's lease; NULL once nothing more will be tried (`sent_at` or `failed_at` says why). Mails queued
 *   before this release were for the local mailbox (`plat local mail`) only: they are never sent — recorded as given
 *   up, with that reason — so that a first `plat serve --smtp-url` mails nobody a revoked or stale invitation.
 * - `lease_owner`: the sender holding it (until `next_attempt_at`), which alone may report how its attempt ended.
 * - `last_error`: why the last attempt failed, as the SMTP server or the network said it (never a credential).
 * - `failed_at`: when the sender gave up (a permanent rejection, or too old); `sent_at` (from migration 1) is when the
 *   SMTP server accepted it.
 */
export const migration: Migration = {
  version: 5,
  name: 'outbox_delivery',
  sql: `
ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN next_attempt_at TEXT;
ALTER TABLE outbox ADD COLUMN lease_owner TEXT;
ALTER TABLE outbox ADD COLUMN last_error TEXT;
ALTER TABLE outbox ADD COLUMN failed_at TEXT;
UPDATE outbox SET failed_at = created_at,
  last_error = 'queued before plat delivered mail by SMTP: kept in the local mailbox only'
  WHERE sent_at IS NULL;
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
`,
};
