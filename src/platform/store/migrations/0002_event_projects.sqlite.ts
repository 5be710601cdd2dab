import type { Migration } from './migration.js';

/**
 * Migration 2, as plat 0.2.0 released it: which projects each event is about, so that a key restricted to some
 * projects reads only the events of those (and of none). An event is about the project it targets, the `projectId` of
 * its data and each of its `projectIds`; the rows of the events already logged are filled in by the same rule (0.2.0's
 * store/events.ts applied it to new ones; migration 8 gave it to a trigger). Frozen: never edit it (a database made by
 * 0.2.0 has exactly this); change the schema with a new migration.
 */
export const migration: Migration = {
  version: 2,
  name: 'event_projects',
  sql: `
CREATE TABLE event_projects (
  event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  PRIMARY KEY (event_id, project_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO event_projects (event_id, project_id)
  SELECT id, target_id FROM events WHERE target_type = 'project' AND target_id IS NOT NULL;
INSERT OR IGNORE INTO event_projects (event_id, project_id)
  SELECT id, json_extract(data, '$.projectId') FROM events
  WHERE json_type(data, '$.projectId') = 'text';
INSERT OR IGNORE INTO event_projects (event_id, project_id)
  SELECT e.id, p.value FROM events e, json_each(e.data, '$.projectIds') p
  WHERE json_type(e.data, '$.projectIds') = 'array' AND p.type = 'text';
`,
};
