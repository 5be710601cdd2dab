import type { Migration } from './migration.js';

/**
 * Migration 2: which projects each event is about, so that a key restricted to some projects reads only the events
 * of those (and of none). An event is about the project it targets, the `projectId` of its data and each of its
 * `projectIds`: the rule is applied to the events already logged, and by a trigger to every event logged from now on,
 * whatever writes it (an older plat still running against the upgraded file included).
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
CREATE TRIGGER event_projects_insert AFTER INSERT ON events BEGIN
  INSERT OR IGNORE INTO event_projects (event_id, project_id)
    SELECT new.id, new.target_id WHERE new.target_type = 'project' AND new.target_id IS NOT NULL;
  INSERT OR IGNORE INTO event_projects (event_id, project_id)
    SELECT new.id, json_extract(new.data, '$.projectId') WHERE json_type(new.data, '$.projectId') = 'text';
  INSERT OR IGNORE INTO event_projects (event_id, project_id)
    SELECT new.id, p.value FROM json_each(new.data, '$.projectIds') p
    WHERE json_type(new.data, '$.projectIds') = 'array' AND p.type = 'text';
END;
INSERT OR IGNORE INTO event_projects (event_id, project_id)
  SELECT id, target_id FROM events WHERE target_type = 'project' AND target_id IS NOT NULL;
INSERT OR IGNORE INTO event_projects (event_id, project_id)
  SELECT id, json_extract(data, '$.projectId') FROM events WHERE json_type(data, '$.projectId') = 'text';
INSERT OR IGNORE INTO event_projects (event_id, project_id)
  SELECT e.id, p.value FROM events e, json_each(e.data, '$.projectIds') p
  WHERE json_type(e.data, '$.projectIds') = 'array' AND p.type = 'text';
`,
};
