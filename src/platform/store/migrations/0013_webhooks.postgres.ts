import type { PgMigration } from './migration.js';

/**
 * Migration 13 on PostgreSQL: webhooks and the event stream, as SQLite's migration 13. Events are ordered for the
 * stream by the transaction that wrote them (`tx`, `pg_current_xact_id()`) and then `seq`: a stream reads only events
 * of transactions older than every one still running (`pg_snapshot_xmin`), so that an event committed late by a
 * transaction begun early is never passed over (store/events.ts). The events already there are numbered in the order
 * they were written (`created_at`, then `id`). Adding the columns rewrites `events` under its lock: a large log takes a
 * while to upgrade, once.
 */
export const migration: PgMigration = {
  version: 13,
  name: 'webhooks',
  sql: `
CREATE TABLE webhooks (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  url text COLLATE "C" NOT NULL,
  events text COLLATE "C" NOT NULL DEFAULT '[]',
  description text COLLATE "C",
  enabled integer NOT NULL DEFAULT 1,
  disabled_reason text COLLATE "C",
  failing_since text COLLATE "C",
  secret text COLLATE "C" NOT NULL,
  previous_secret text COLLATE "C",
  previous_secret_expires_at text COLLATE "C",
  busy_until text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
);
CREATE INDEX webhooks_org ON webhooks (org_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id text COLLATE "C" PRIMARY KEY,
  webhook_id text COLLATE "C" NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  payload text COLLATE "C" NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at text COLLATE "C",
  lease_owner text COLLATE "C",
  last_status_code integer,
  last_error text COLLATE "C",
  delivered_at text COLLATE "C",
  failed_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (webhook_id, next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at, id);

ALTER TABLE events ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE events ADD COLUMN seq bigint;
UPDATE events SET seq = numbered.n
  FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM events) numbered
  WHERE events.id = numbered.id;
ALTER TABLE events ALTER COLUMN seq SET NOT NULL;
ALTER TABLE events ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY;
SELECT setval(pg_get_serial_sequence('events', 'seq'), (SELECT coalesce(max(seq), 0) + 1 FROM events), false);
CREATE UNIQUE INDEX events_seq ON events (seq);
CREATE INDEX events_stream ON events (org_id, tx, seq);
`,
};
