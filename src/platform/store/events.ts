import type { Event } from '../../contract/events.js';
import type { Db } from './db.js';
import { type Listing, newestFirst, runList, type SortPosition } from './paging.js';

type Row = {
  id: string;
  org_id: string;
  type: string;
  actor_type: Event['actor']['type'];
  actor_id: string;
  target_type: string | null;
  target_id: string | null;
  request_id: string | null;
  data: string;
  created_at: string;
};

function toEvent(r: Row): Event {
  return {
    id: r.id,
    type: r.type,
    organizationId: r.org_id,
    actor: { type: r.actor_type, id: r.actor_id },
    target: r.target_type && r.target_id ? { type: r.target_type, id: r.target_id } : null,
    requestId: r.request_id,
    createdAt: r.created_at,
    data: JSON.parse(r.data) as Event['data'],
  };
}

/** The audit log: its SQL in one place. One row per write, inserted in the write's own transaction. */
export function eventsStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO events (id, org_id, type, actor_type, actor_id, target_type, target_id, request_id, data, created_at)
     VALUES (@id, @organizationId, @type, @actorType, @actorId, @targetType, @targetId, @requestId, @data, @createdAt)`,
  );
  return {
    /**
     * Logs an event, inside the write's own transaction; a trigger records the projects it is about (migration 2),
     * which `list` reads to leave out what a restricted key may not see.
     */
    insert: (e: Event) => {
      insert.run({
        id: e.id,
        organizationId: e.organizationId,
        type: e.type,
        actorType: e.actor.type,
        actorId: e.actor.id,
        targetType: e.target?.type ?? null,
        targetId: e.target?.id ?? null,
        requestId: e.requestId,
        data: JSON.stringify(e.data),
        createdAt: e.createdAt,
      });
    },
    /**
     * Newest first; filters `type` and `since` (inclusive). `reach` (a key restricted to some projects) leaves out
     * every event about a project outside it.
     */
    list: (
      orgId: string,
      listing: Listing,
      f: { type?: string; since?: string },
      reach: readonly string[] | null,
      next: (p: SortPosition) => string,
    ) => {
      const where = ['org_id = ?'];
      const params: unknown[] = [orgId];
      if (reach !== null) {
        where.push(
          'NOT EXISTS (SELECT 1 FROM event_projects ep WHERE ep.event_id = events.id AND ep.project_id NOT IN (SELECT value FROM json_each(?)))',
        );
        params.push(JSON.stringify(reach));
      }
      if (f.type) {
        where.push('type = ?');
        params.push(f.type);
      }
      if (f.since) {
        where.push('created_at >= ?');
        params.push(f.since);
      }
      const spec = newestFirst('events', where, params);
      const { rows, pagination } = runList<Row>(db, spec, listing, next);
      return { data: rows.map(toEvent), pagination };
    },
  };
}
