import { sql } from 'kysely';
import { nocaseEquals } from './dialects.js';
import { SEALED } from './secret-box.js';
import type { Q, StoreEnv } from './sql.js';

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

/** What a mail whose sealed text and links were discarded (`plat local forget-secrets`) says instead. */
export const FORGOTTEN_MAIL_TEXT =
  'This message was sealed with a secret key that was lost (plat local forget-secrets): its text and links are gone.';

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
 * then reports how each attempt ended — only while its claim is still the mail's latest. A mail's text and links are
 * sealed (store/secret-box.ts): they hold one-time links, an invitation's included, which a copy of the database must
 * not give away; its recipient and subject stay readable for the mailbox's listing. Mails written before sealing
 * existed read as they were stored.
 */
export function outboxStore(q: Q, env: StoreEnv) {
  const { dialect } = env.sql;
  const { secrets } = env;
  const toMail = (r: Row): Mail => ({
    id: r.id,
    to: r.to_addr,
    subject: r.subject,
    text: secrets.open(r.text, SEALED.mailText(r.id)),
    links: JSON.parse(secrets.open(r.links, SEALED.mailLinks(r.id))) as string[],
    createdAt: r.created_at,
  });
  /** The mailbox's rows, newest first: every message, or those to one address (case-insensitive); at most `limit`. */
  const listRows = (opts: { to?: string; limit?: number }): Promise<(Row & DeliveryRow)[]> => {
    let query = q.selectFrom('outbox').selectAll();
    // As the `outbox_to` index compares (SQLite's NOCASE).
    if (opts.to !== undefined) query = query.where(nocaseEquals(dialect, 'to_addr', opts.to));
    // `rowid` breaks ties in insertion order (two mails of the same millisecond still list newest first): SQLite's own,
    // a column of PostgreSQL's table under the same name.
    query = query.orderBy('created_at', 'desc').orderBy(sql`rowid`, 'desc');
    return (opts.limit === undefined ? query : query.limit(opts.limit)).execute();
  };
  /** Who reports on a claim: the sender and the attempt it claimed. */
  type Claim = { id: string; owner: string; attempt: number };
  /** The mail while `c` is still its latest claim and it is not sent. */
  const ours = (c: Claim) =>
    q
      .updateTable('outbox')
      .where('id', '=', c.id)
      .where('lease_owner', '=', c.owner)
      .where('attempts', '=', c.attempt)
      .where('sent_at', 'is', null);
  return {
    /** Queues an e-mail (in the caller's transaction). `orgId` is the organization it was sent for, if any. */
    enqueue: async (m: Mail & { orgId: string | null }): Promise<void> => {
      await q
        .insertInto('outbox')
        .values({
          id: m.id,
          org_id: m.orgId,
          to_addr: m.to,
          subject: m.subject,
          text: secrets.seal(m.text, SEALED.mailText(m.id)),
          links: secrets.seal(JSON.stringify(m.links), SEALED.mailLinks(m.id)),
          created_at: m.createdAt,
          next_attempt_at: m.createdAt,
        })
        .execute();
    },
    /** The mailbox, newest first: every message, or those to one address (case-insensitive); at most `limit` (default all). */
    list: async (opts: { to?: string; limit?: number } = {}): Promise<Mail[]> => (await listRows(opts)).map(toMail),
    /** The same, each mail with where it stands with the SMTP sender as of `now`. */
    listWithDelivery: async (
      opts: { to?: string; limit?: number },
      now: string,
    ): Promise<(Mail & { delivery: Delivery })[]> =>
      (await listRows(opts)).map((r) => ({ ...toMail(r), delivery: toDelivery(r, now) })),
    /** Where a mail stands with the SMTP sender, as of `now`. */
    delivery: async (id: string, now: string): Promise<Delivery | undefined> => {
      const row = await q
        .selectFrom('outbox')
        .select(['attempts', 'next_attempt_at', 'lease_owner', 'sent_at', 'failed_at', 'last_error'])
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toDelivery(row, now);
    },
    /** How many mails are still to be sent (queued or being sent). */
    waiting: async (): Promise<number> => {
      const r = await q
        .selectFrom('outbox')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('next_attempt_at', 'is not', null)
        .executeTakeFirst();
      return Number(r?.n ?? 0);
    },
    /**
     * Claims up to `limit` mails due at `now` for `owner` until `leaseUntil`, in one statement: a mail is claimed by
     * one sender at a time, however many share the database. The lease is the mail's next attempt time: a claim moves
     * it to the lease's end, so a sender that dies holding it leaves it due again once the lease is over. Oldest due
     * first, returned in the order they were queued (neither backend promises an order to an update's rows).
     * On PostgreSQL, where senders claim at the same time (SQLite has one writer), the subquery skips the mails another
     * claim is locking, and the due condition is checked again on the row as the update finds it: a mail another
     * sender claimed since the subquery read it is due no longer, and is left alone.
     */
    claim: async (c: { owner: string; now: string; leaseUntil: string; limit: number }): Promise<ClaimedMail[]> => {
      const rows = await q
        .updateTable('outbox')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), lease_owner: c.owner, next_attempt_at: c.leaseUntil }))
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('outbox')
            .select('id')
            .where('next_attempt_at', 'is not', null)
            .where('next_attempt_at', '<=', c.now)
            // `rowid` breaks ties in insertion order.
            .orderBy('next_attempt_at')
            .orderBy(sql`rowid`)
            .limit(c.limit)
            .$if(dialect === 'postgres', (s) => s.forUpdate().skipLocked()),
        )
        .where('next_attempt_at', 'is not', null)
        .where('next_attempt_at', '<=', c.now)
        .returning(['id', 'to_addr', 'subject', 'text', 'links', 'created_at', 'attempts', 'last_error'])
        .returning(sql<number>`rowid`.as('queued'))
        .execute();
      rows.sort((a, b) => Number(a.queued) - Number(b.queued));
      return rows.map((r) => ({ ...toMail(r), attempt: r.attempts, lastError: r.last_error }));
    },
    /**
     * Discards the text and links of every mail (the key they were sealed with is lost; those an earlier release kept
     * in clear, which could not be sealed without it, go too): each says so instead, and one not sent yet is given up.
     * Returns how many.
     */
    forgetMails: async (now: string): Promise<number> => {
      const r = await q
        .updateTable('outbox')
        .set((eb) => ({
          text: FORGOTTEN_MAIL_TEXT,
          links: '[]',
          failed_at: eb
            .case()
            .when('sent_at', 'is', null)
            .then(eb.fn.coalesce('failed_at', eb.val(now)))
            .else(null)
            .end(),
          last_error: eb
            .case()
            .when('sent_at', 'is', null)
            .then(eb.fn.coalesce('last_error', eb.val('sealed with a secret key that was lost')))
            .else(null)
            .end(),
          next_attempt_at: null,
          lease_owner: null,
        }))
        .where('text', '<>', FORGOTTEN_MAIL_TEXT)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    /** The SMTP server accepted it. Accepted is accepted, whoever holds the mail now: it is never tried again. */
    sent: async (id: string, now: string): Promise<boolean> => {
      const r = await q
        .updateTable('outbox')
        .set({ sent_at: now, failed_at: null, next_attempt_at: null, lease_owner: null, last_error: null })
        .where('id', '=', id)
        .where('sent_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** The attempt failed: due again at `at`. False when the claim was no longer the mail's (its lease had ended). */
    retry: async (c: Claim & { at: string; error: string }): Promise<boolean> => {
      const r = await ours(c).set({ next_attempt_at: c.at, lease_owner: null, last_error: c.error }).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** The attempt failed and the sender gives up. False when the claim was no longer the mail's. */
    fail: async (c: Claim & { now: string; error: string }): Promise<boolean> => {
      const r = await ours(c)
        .set({ failed_at: c.now, next_attempt_at: null, lease_owner: null, last_error: c.error })
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}
