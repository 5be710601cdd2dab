import type { Migration } from './migration.js';

/**
 * Migration 13: webhooks and the event stream (docs/webhooks.md).
 * - `webhooks`: an organization's endpoints; `secret` and `previous_secret` sealed (secret-box.ts), since each
 *   delivery is signed with them.
 * - `webhook_deliveries`: one row per event and endpoint, written in the transaction that logs the event (the
 *   transactional outbox: no event without its deliveries, none without its event), holding the body sent on every
 *   attempt; claimed by a server with a lease, as the mail outbox is.
 * - `events.seq`: the order events were committed in, which the stream resumes from (`Last-Event-ID`); the rowid
 *   could serve on SQLite until a VACUUM renumbers it. Existing events keep their rowid order.
 */
export const migration: Migration = {
  version: 13,
  name: 'webhooks',
  sql: `
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  events TEXT NOT NULL DEFAULT '[]',
  description TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  failing_since TEXT,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at TEXT,
  busy_until TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhooks_org ON webhooks (org_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id TEXT NOT NULL,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  lease_owner TEXT,
  last_status_code INTEGER,
  last_error TEXT,
  delivered_at TEXT,
  failed_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (webhook_id, next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at, id);

ALTER TABLE events ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE events SET seq = rowid;
CREATE UNIQUE INDEX events_seq ON events (seq);
CREATE INDEX events_stream ON events (org_id, seq);
`,
};
