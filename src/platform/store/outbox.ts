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

/** Where a mail stands with the SMTP sender of `plat serve --smtp-url`. */
export interface Delivery {
  /** `queued` (waiting for a sender, or to be retried), `sending` (a sender holds it), `sent`, `failed` (given up). */
  status: 'queued' | 'sending' | 'sent' | 'failed';
  attempts: number;
  /** When a sender may try it next (while `queued`); null once sent or failed. */
  nextAttemptAt: string | null;
  /** When the SMTP server accepted it. */
  sentAt: string | null;
  /** When the sender gave up on it. */
  failedAt: string | null;
  /** Why the last attempt failed, if it did. */
  lastError: string | null;
}

/** A mail a sender has claimed: it holds it until its lease ends, and reports with `attempt` how it went. */
export interface ClaimedMail extends Mail {
  /** Which attempt this is (1 for the first): with the sender's id, the claim that may report back. */
  attempt: number;
  /** Why the attempt before failed, if one did. */
  lastError: string | null;
}

type Row = { id: string; to_addr: string; subject: string; text: string; links: string; created_at: string };
type DeliveryRow = {
  attempts: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  sent_at: string | null;
  failed_at: string | null;
  last_error: string | null;
};

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

function toDelivery(r: DeliveryRow, now: string): Delivery {
  const status = r.sent_at
    ? 'sent'
    : r.failed_at
      ? 'failed'
      : r.lease_owner && (r.next_attempt_at ?? '') > now
        ? 'sending'
        : 'queued';
  return {
    status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    sentAt: r.sent_at,
    failedAt: r.failed_at,
    lastError: r.last_error,
  };
}

/**
 * The outbox every e-mail goes through: its SQL in one place. The embedded platform keeps every message here as its
 * local mailbox (what `plat local mail` shows); a server with SMTP also sends them (platform/mail/delivery.ts): a
 * sender claims due mails with a lease (one statement, so that two servers on one database never hold the same mail),
 * then reports how each attempt ended — only while its claim is still the mail's latest.
 */
export function outboxStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO outbox (id, org_id, to_addr, subject, text, links, created_at, next_attempt_at)
     VALUES (@id, @orgId, @to, @subject, @text, @links, @createdAt, @createdAt)`,
  );
  // rowid breaks ties in insertion order: two mails of the same millisecond still list newest first.
  const list = db.prepare<[number], Row & DeliveryRow>(
    'SELECT * FROM outbox ORDER BY created_at DESC, rowid DESC LIMIT ?',
  );
  const listTo = db.prepare<[string, number], Row & DeliveryRow>(
    'SELECT * FROM outbox WHERE to_addr = ? COLLATE NOCASE ORDER BY created_at DESC, rowid DESC LIMIT ?',
  );
  const delivery = db.prepare<[string], DeliveryRow>(
    'SELECT attempts, next_attempt_at, lease_owner, sent_at, failed_at, last_error FROM outbox WHERE id = ?',
  );
  const waiting = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM outbox WHERE next_attempt_at IS NOT NULL');
  // The lease is the mail's next attempt time: a claim moves it to the lease's end, so a sender that dies holding it
  // leaves it due again once the lease is over. Oldest due first.
  const claim = db.prepare<
    { owner: string; now: string; leaseUntil: string; limit: number },
    Row & { attempts: number; last_error: string | null }
  >(
    `UPDATE outbox SET attempts = attempts + 1, lease_owner = @owner, next_attempt_at = @leaseUntil
     WHERE id IN (SELECT id FROM outbox WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= @now
                  ORDER BY next_attempt_at, rowid LIMIT @limit)
     RETURNING id, to_addr, subject, text, links, created_at, attempts, last_error`,
  );
  // Accepted is accepted, whoever holds the mail now: it is never tried again.
  const sent = db.prepare(
    `UPDATE outbox SET sent_at = @now, failed_at = NULL, next_attempt_at = NULL, lease_owner = NULL, last_error = NULL
     WHERE id = @id AND sent_at IS NULL`,
  );
  const ours = 'id = @id AND lease_owner = @owner AND attempts = @attempt AND sent_at IS NULL';
  const retry = db.prepare(
    `UPDATE outbox SET next_attempt_at = @at, lease_owner = NULL, last_error = @error WHERE ${ours}`,
  );
  const fail = db.prepare(
    `UPDATE outbox SET failed_at = @now, next_attempt_at = NULL, lease_owner = NULL, last_error = @error WHERE ${ours}`,
  );
  /** Who reports on a claim: the sender and the attempt it claimed. */
  const listRows = (opts: { to?: string; limit?: number }) => {
    const limit = opts.limit ?? -1; // SQLite: a negative LIMIT is no limit
    return opts.to === undefined ? list.all(limit) : listTo.all(opts.to, limit);
  };
  type Claim = { id: string; owner: string; attempt: number };
  return {
    /** Queues an e-mail (in the caller's transaction). `orgId` is the organization it was sent for, if any. */
    enqueue: (m: Mail & { orgId: string | null }) => void insert.run({ ...m, links: JSON.stringify(m.links) }),
    /** The mailbox, newest first: every message, or those to one address (case-insensitive); at most `limit` (default all). */
    list: (opts: { to?: string; limit?: number } = {}): Mail[] => listRows(opts).map(toMail),
    /** The same, each mail with where it stands with the SMTP sender as of `now`. */
    listWithDelivery: (opts: { to?: string; limit?: number }, now: string): (Mail & { delivery: Delivery })[] =>
      listRows(opts).map((r) => ({ ...toMail(r), delivery: toDelivery(r, now) })),
    /** Where a mail stands with the SMTP sender, as of `now`. */
    delivery: (id: string, now: string): Delivery | undefined => {
      const row = delivery.get(id);
      return row && toDelivery(row, now);
    },
    /** How many mails are still to be sent (queued or being sent). */
    waiting: (): number => (waiting.get() as { n: number }).n,
    /**
     * Claims up to `limit` mails due at `now` for `owner` until `leaseUntil`, in one statement: a mail is claimed by
     * one sender at a time, however many share the database.
     */
    claim: (c: { owner: string; now: string; leaseUntil: string; limit: number }): ClaimedMail[] =>
      claim.all(c).map((r) => ({ ...toMail(r), attempt: r.attempts, lastError: r.last_error })),
    /** The SMTP server accepted it. */
    sent: (id: string, now: string): boolean => sent.run({ id, now }).changes > 0,
    /** The attempt failed: due again at `at`. False when the claim was no longer the mail's (its lease had ended). */
    retry: (c: Claim & { at: string; error: string }): boolean => retry.run(c).changes > 0,
    /** The attempt failed and the sender gives up. False when the claim was no longer the mail's. */
    fail: (c: Claim & { now: string; error: string }): boolean => fail.run(c).changes > 0,
  };
}
