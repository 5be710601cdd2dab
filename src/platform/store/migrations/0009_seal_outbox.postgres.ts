import type { PgMigration } from './migration.js';

/**
 * Migration 9 on PostgreSQL: the outbox's mails sealed, as SQLite's migration 9 does (their text and links hold
 * one-time links). The row versions the update leaves behind are PostgreSQL's to reclaim (autovacuum); a database
 * copied before then still holds them. The additional data each value is bound to is written out here, as the store
 * writes it.
 */
export const migration: PgMigration = {
  version: 9,
  name: 'seal_outbox',
  sql: '',
  after: async (q, { secrets }) => {
    // With another key at hand than the database's nothing can be sealed: the mails stay as they were, for
    // `plat local forget-secrets` to discard with the sealed secrets.
    try {
      secrets.check();
    } catch {
      return;
    }
    const clear = await q
      .selectFrom('outbox')
      .select(['id', 'text', 'links'])
      .where((eb) => eb.or([eb('text', 'not like', 'enc:v1:%'), eb('links', 'not like', 'enc:v1:%')]))
      .execute();
    const sealed = (value: string, context: string) =>
      value.startsWith('enc:v1:') ? value : secrets.seal(value, context);
    for (const m of clear) {
      await q
        .updateTable('outbox')
        .set({ text: sealed(m.text, `outbox.text:${m.id}`), links: sealed(m.links, `outbox.links:${m.id}`) })
        .where('id', '=', m.id)
        .execute();
    }
  },
};
