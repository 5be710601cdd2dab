import type { Db } from './db.js';

/** One e-mail as the mailbox shows it. */
export interface Mail {
  id: string;
  to: string;
  subject: string;
  text: string;
  /** The links of the message, in order (the first is its call to action). */
  links: string[];
  createdAt: string;
}

type Row = { id: string; to_addr: string; subject: string; text: string; links: string; created_at: string };

function toMail(r: Row): Mail {
  return {
    id: r.id,
    to: r.to_addr,
    subject: r.subject,
    text: r.text,
    links: JSON.parse(r.links) as string[],
    createdAt: r.created_at,
  };
}

/**
 * The outbox every e-mail goes through: its SQL in one place. The embedded platform keeps every message here as its
 * local mailbox (what `plat local mail` shows); a server with SMTP also sends them and stamps `sent_at`.
 */
export function outboxStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO outbox (id, org_id, to_addr, subject, text, links, created_at)
     VALUES (@id, @orgId, @to, @subject, @text, @links, @createdAt)`,
  );
  // rowid breaks ties in insertion order: two mails of the same millisecond still list newest first.
  const list = db.prepare<[number], Row>('SELECT * FROM outbox ORDER BY created_at DESC, rowid DESC LIMIT ?');
  const listTo = db.prepare<[string, number], Row>(
    'SELECT * FROM outbox WHERE to_addr = ? COLLATE NOCASE ORDER BY created_at DESC, rowid DESC LIMIT ?',
  );
  return {
    /** Queues an e-mail (in the caller's transaction). `orgId` is the organization it was sent for, if any. */
    enqueue: (m: Mail & { orgId: string | null }) => void insert.run({ ...m, links: JSON.stringify(m.links) }),
    /** The mailbox, newest first: every message, or those to one address (case-insensitive); at most `limit` (default all). */
    list: (opts: { to?: string; limit?: number } = {}): Mail[] => {
      const limit = opts.limit ?? -1; // SQLite: a negative LIMIT is no limit
      return (opts.to === undefined ? list.all(limit) : listTo.all(opts.to, limit)).map(toMail);
    },
  };
}
