import { sql } from 'kysely';
import type { Event } from '../../contract/events.js';
import { webhookBody } from '../../contract/webhooks.js';
import { jsonStrings } from './dialects.js';
import { type Listing, newestFirst, runList, type SortPosition, withParams } from './paging.js';
import type { Q, StoreEnv } from './sql.js';
import { webhooksStore } from './webhooks.js';

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

/**
 * Where an event stands in the order events were committed (docs/webhooks.md, "The event stream"): `seq` on SQLite,
 * whose writes are serial; on PostgreSQL the writing transaction's id first (`tx`), then `seq`.
 */
export interface StreamPosition {
  tx: string | null;
  seq: number;
  /**
   * On PostgreSQL, for a stream begun "now": the snapshot of that moment (`pg_snapshot` as text). An event it shows
   * committed before the stream began, and is left out, however old the transactions still running then.
   */
  since?: string;
}

/** An event with its place in the stream. */
export interface StreamedEvent {
  event: Event;
  position: StreamPosition;
}

/** Leaves out, for a key restricted to some projects (`reach`), every event about a project outside them. */
function reachClause(dialect: 'sqlite' | 'postgres'): string {
  const reach = `SELECT value FROM ${jsonStrings(dialect, '?')}`;
  return `NOT EXISTS (SELECT 1 FROM event_projects ep WHERE ep.event_id = events.id AND ep.project_id NOT IN (${reach}))`;
}

/**
 * The audit log: its SQL in one place. One row per write, inserted in the write's own transaction, with the webhook
 * deliveries it makes.
 */
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
          // PostgreSQL's identity column numbers it; SQLite's writes are serial, so the next number is the order.
          ...(dialect === 'sqlite' && { seq: sql<number>`(SELECT coalesce(max(seq), 0) + 1 FROM events)` }),
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
      await webhooksStore(q, env).fanOut({
        orgId: e.organizationId,
        eventId: e.id,
        type: e.type,
        payload: webhookBody(e),
        now: e.createdAt,
      });
    },
    /** Where the organization's event stands in the stream, or undefined when it has no such event. */
    position: async (orgId: string, id: string): Promise<StreamPosition | undefined> => {
      const r = await q
        .selectFrom('events')
        .select(['seq'])
        .$if(dialect === 'postgres', (s) => s.select(sql<string>`tx::text`.as('tx')))
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!r) return undefined;
      return { tx: (r as { tx?: string }).tx ?? null, seq: Number(r.seq) };
    },
    /**
     * The stream's "now": every event after it is new. On PostgreSQL, the oldest transaction still running (what it
     * and later ones write comes after), with the snapshot of this moment: an event a later transaction committed
     * before it is not new, and is left out.
     */
    now: async (): Promise<StreamPosition> => {
      if (dialect === 'sqlite') {
        const r = await q
          .selectFrom('events')
          .select((eb) => eb.fn.max('seq').as('seq'))
          .executeTakeFirst();
        return { tx: null, seq: Number(r?.seq ?? 0) };
      }
      const r = await sql<{ tx: string; since: string }>`
        SELECT pg_snapshot_xmin(s)::text AS tx, s::text AS since FROM pg_current_snapshot() AS s`.execute(q);
      const row = r.rows[0];
      return { tx: row?.tx ?? '0', seq: 0, ...(row && { since: row.since }) };
    },
    /**
     * The organization's events after `from`, in the stream's order, at most `limit`. On PostgreSQL only those of
     * transactions older than every one still running: a later read can never find an event before the last one read.
     */
    after: async (
      orgId: string,
      from: StreamPosition,
      limit: number,
      reach: readonly string[] | null,
    ): Promise<StreamedEvent[]> => {
      const where = ['org_id = ?'];
      const params: unknown[] = [orgId];
      if (dialect === 'sqlite') {
        where.push('seq > ?');
        params.push(from.seq);
      } else {
        where.push('(tx, seq) > (CAST(? AS xid8), ?)', 'tx < pg_snapshot_xmin(pg_current_snapshot())');
        params.push(from.tx ?? '0', from.seq);
        if (from.since) {
          where.push('NOT pg_visible_in_snapshot(tx, CAST(? AS pg_snapshot))');
          params.push(from.since);
        }
      }
      if (reach !== null) {
        where.push(reachClause(dialect));
        params.push(JSON.stringify(reach));
      }
      const order = dialect === 'sqlite' ? 'seq' : 'tx, seq';
      const columns = dialect === 'sqlite' ? '*' : '*, CAST(tx AS text) AS tx_text';
      const text =
        `SELECT ${columns} FROM events WHERE ${where.join(' AND ')} ` + `ORDER BY ${order} LIMIT ${Math.floor(limit)}`;
      const rows = await withParams<Row & { seq: number | string; tx_text?: string }>(text, params).execute(q);
      return rows.rows.map((r) => ({ event: toEvent(r), position: { tx: r.tx_text ?? null, seq: Number(r.seq) } }));
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
        where.push(reachClause(dialect));
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
