import type { PgMigration } from './migration.js';

/**
 * Migration 8 on PostgreSQL: the rule of which projects an event is about — the project it targets, the `projectId` of
 * its data and each of its `projectIds` — kept by a trigger, whatever writes the event, as SQLite's migration 8 does.
 * The function reads `data` as jsonb. Nothing to link here: the baseline (migration 7) and this one run in the same
 * transaction, so no PostgreSQL database ever held an event without this trigger.
 */
export const migration: PgMigration = {
  version: 8,
  name: 'event_projects_trigger',
  sql: `
CREATE FUNCTION event_projects_of_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d jsonb := new.data::jsonb;
BEGIN
  IF new.target_type = 'project' AND new.target_id IS NOT NULL THEN
    INSERT INTO event_projects (event_id, project_id) VALUES (new.id, new.target_id) ON CONFLICT DO NOTHING;
  END IF;
  IF jsonb_typeof(d -> 'projectId') = 'string' THEN
    INSERT INTO event_projects (event_id, project_id) VALUES (new.id, d ->> 'projectId') ON CONFLICT DO NOTHING;
  END IF;
  IF jsonb_typeof(d -> 'projectIds') = 'array' THEN
    INSERT INTO event_projects (event_id, project_id)
      SELECT new.id, p.value #>> '{}' FROM jsonb_array_elements(d -> 'projectIds') p
      WHERE jsonb_typeof(p.value) = 'string'
      ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER event_projects_insert AFTER INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION event_projects_of_event();
`,
};
