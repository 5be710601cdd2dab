import type { Event } from '../../contract/events.js';
import { jsonStrings } from './dialects.js';
import { type Listing, newestFirst, runList, type SortPosition } from './paging.js';
import type { Q, StoreEnv } from './sql.js';

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
export function eventsStore(q: Q, env: StoreEnv) {
  const { dialect } = env.sql;
  return {
    /**
     * Logs an event, inside the write's own transaction; a trigger records the projects it is about (migration 8),
     * which `list` reads to leave out what a restricted key may not see.
     */
    insert: async (e: Event): Promise<void> => {
      await q
        .insertInto('events')
        .values({
          id: e.id,
          org_id: e.organizationId,
          type: e.type,
          actor_type: e.actor.type,
          actor_id: e.actor.id,
          target_type: e.target?.type ?? null,
          target_id: e.target?.id ?? null,
          request_id: e.requestId,
          data: JSON.stringify(e.data),
          created_at: e.createdAt,
        })
        .execute();
    },
    /**
     * Newest first; filters `type` and `since` (inclusive). `reach` (a key restricted to some projects) leaves out
     * every event about a project outside it.
     */
    list: async (
      orgId: string,
      listing: Listing,
      f: { type?: string; since?: string },
      reach: readonly string[] | null,
      next: (p: SortPosition) => string,
    ) => {
      const where = ['org_id = ?'];
      const params: unknown[] = [orgId];
      if (reach !== null) {
        // The project ids as one JSON parameter.
        where.push(
          `NOT EXISTS (SELECT 1 FROM event_projects ep WHERE ep.event_id = events.id AND ep.project_id NOT IN (SELECT value FROM ${jsonStrings(dialect, '?')}))`,
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
      const { rows, pagination } = await runList<Row>(q, spec, listing, next);
      return { data: rows.map(toEvent), pagination };
    },
  };
}
