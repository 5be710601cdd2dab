import type { Migration } from './migration.js';

/**
 * Migration 9: the mails of the outbox, which earlier releases kept in clear — an invitation's text and links hold its
 * one-time link — sealed with the key kept apart from the database, as the store now writes them (store/outbox.ts). No
 * schema change: the same columns hold sealed values. The rewritten rows' old bytes are overwritten (`secure_delete`
 * for this step alone), and the file is rewritten once the migrations are done (store/db.ts), so that no earlier
 * free space keeps them. The additional data each value is bound to is written out
 * here, as the store writes it, so that this migration stays what it is whatever the store becomes.
 */
export const migration: Migration = {
  version: 9,
  name: 'seal_outbox',
  sql: '',
  after: (db, { secrets }) => {
    // With the database's key lost (or another key at hand) nothing can be sealed: the mails stay as they were, for
    // `plat local forget-secrets` to discard with the sealed secrets, rather than every command failing here.
    try {
      secrets.check();
    } catch {
      return;
    }
    const clear = db
      .prepare(
        "SELECT id, text, links FROM outbox WHERE substr(text, 1, 7) <> 'enc:v1:' OR substr(links, 1, 7) <> 'enc:v1:'",
      )
      .all() as { id: string; text: string; links: string }[];
    if (clear.length === 0) return;
    const seal = db.prepare('UPDATE outbox SET text = ?, links = ? WHERE id = ?');
    const sealed = (value: string, context: string) =>
      value.startsWith('enc:v1:') ? value : secrets.seal(value, context);
    db.pragma('secure_delete = ON');
    try {
      for (const m of clear) {
        seal.run(sealed(m.text, `outbox.text:${m.id}`), sealed(m.links, `outbox.links:${m.id}`), m.id);
      }
    } finally {
      db.pragma('secure_delete = OFF');
    }
  },
};
