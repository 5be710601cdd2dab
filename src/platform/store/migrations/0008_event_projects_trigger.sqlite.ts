import type { Migration } from './migration.js';

/**
 * Migration 8: the rule of migration 2 — an event is about the project it targets, the `projectId` of its data and
 * each of its `projectIds` — kept by a trigger, for every event logged from now on whatever writes it (an older plat
 * still running against the upgraded file included); the store no longer links events itself.
 * - After 0.2.0 the trigger was written into migration 2 itself, which a database that 0.2.0 had already migrated never
 *   runs again: such a database had no trigger, and the events logged since were about no project, which put them
 *   within the reach of every key restricted to some projects. Those events are linked here by the same rule.
 * - A database migrated while migration 2 held the trigger already has it, and every link: nothing changes there.
 */
export const migration: Migration = {
  version: 8,
  name: 'event_projects_trigger',
  sql: `
CREATE TRIGGER IF NOT EXISTS event_projects_insert AFTER INSERT ON events BEGIN
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
