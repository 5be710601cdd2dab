import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { testDatabase } from '../../helpers/backend.js';
import { dbColumn } from '../../helpers/db.js';
import { readStream } from '../../helpers/event-stream-reader.js';
import { baseOf } from '../../helpers/internals.js';
import { type TestPlatform, testPlatform } from '../../helpers/platform.js';

/**
 * The event stream on PostgreSQL (docs/webhooks.md, "The event stream"), where writes are not serial: a transaction
 * that began writing first may commit last, and the stream must neither skip its event nor repeat another. Run by the
 * PostgreSQL configuration only (vitest.postgres.config.ts): on SQLite there is no such order to get wrong.
 */

const streamPath = (orgId: string) => `/v2/organizations/${orgId}/events/stream`;

/** The ids of the organization's events in the stream's order: the writing transaction, then `seq`. */
function inStreamOrder(platform: object, orgId: string): Promise<string[]> {
  return dbColumn<string>(platform, 'SELECT id FROM events WHERE org_id = ? ORDER BY tx, seq', orgId);
}

describe('on PostgreSQL, transactions that commit out of order', () => {
  /** A platform, and a connection of its own to the same database: a writer beside the platform. */
  async function beside() {
    const { db } = await testDatabase();
    const t = await testPlatform({ db });
    const raw = new pg.Client({ connectionString: db });
    await raw.connect();
    /** Begins a transaction that logs an event (so it holds a transaction id), left open. */
    const begin = async (id: string) => {
      await raw.query('BEGIN');
      await raw.query(
        `INSERT INTO events (id, org_id, type, actor_type, actor_id, data, created_at)
         VALUES ($1, $2, 'test.early', 'system', 'beside', '{}', '2026-01-01T00:00:00.000Z')`,
        [id, t.orgId],
      );
    };
    return { t, raw, begin };
  }

  function open(t: TestPlatform, headers: Record<string, string> = {}) {
    return t.platform.fetch(
      new Request(`http://plat.test${streamPath(t.orgId)}`, { headers: { 'X-API-Key': t.ownerKey, ...headers } }),
    );
  }

  it('holds back a later transaction’s event while an earlier one runs; then both once, in order', async () => {
    const { t, raw, begin } = await beside();
    try {
      const [start] = await inStreamOrder(t.platform, t.orgId);
      const live = readStream((await open(t, { 'Last-Event-ID': start as string })).body as ReadableStream<Uint8Array>);
      await begin('evt_early');
      // The later transaction commits first.
      await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'late@acme.test' } });
      const [late] = (await t.call('GET', `/organizations/${t.orgId}/events?type=user.invited`)).body.data;
      const from = await baseOf(t.platform).stores.events.position(t.orgId, start as string);
      expect(await baseOf(t.platform).stores.events.after(t.orgId, from as never, 100, null)).toEqual([]);
      expect(live.events).toEqual([]);
      await raw.query('COMMIT');
      await live.until(() => live.events.length >= 2, 'both events');
      const resumed = readStream(
        (await open(t, { 'Last-Event-ID': start as string })).body as ReadableStream<Uint8Array>,
      );
      await t.call('PATCH', `/organizations/${t.orgId}`, { body: { name: 'Marker' } });
      for (const s of [live, resumed]) {
        await s.until(() => s.events.some((e) => e.event === 'organization.updated'), 'the marker');
        expect(s.events.map((e) => e.id)).toEqual(['evt_early', late.id, expect.stringMatching(/^evt_/)]);
        await s.close();
      }
    } finally {
      await raw.end();
    }
  });

  it('sends without Last-Event-ID nothing committed before, even while an older transaction runs', async () => {
    const { t, raw, begin } = await beside();
    try {
      await begin('evt_open');
      await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'before@acme.test' } });
      const stream = readStream((await open(t)).body as ReadableStream<Uint8Array>);
      await stream.until(() => stream.blocks.length > 0, 'the first block');
      await t.call('POST', `/organizations/${t.orgId}/users`, { body: { email: 'after@acme.test' } });
      await raw.query('COMMIT');
      await stream.until(() => stream.events.length >= 2, 'two events');
      await t.call('PATCH', `/organizations/${t.orgId}`, { body: { name: 'Marker' } });
      await stream.until(() => stream.events.some((e) => e.event === 'organization.updated'), 'the marker');
      // The open transaction's event commits after the connection: it is new; the invitation before it is not.
      const seen = stream.events.map((e) => (e.event === 'user.invited' ? e.data.data.email : e.id));
      expect(seen).toEqual(['evt_open', 'after@acme.test', expect.stringMatching(/^evt_/)]);
      await stream.close();
    } finally {
      await raw.end();
    }
  });
});
