import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import type { DeliveryStatus } from '../../contract/webhooks.js';
import { jsonStrings } from './dialects.js';
import { type Listing, newestFirst, runList, type SortPosition } from './paging.js';
import type { Tables, WebhookDeliveriesTable, WebhooksTable } from './schema.js';
import { SEALED } from './secret-box.js';
import type { Q, StoreEnv } from './sql.js';

/** A webhook endpoint as stored, its secrets opened. */
export interface StoredWebhook {
  id: string;
  organizationId: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A delivery as stored. */
export interface StoredDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** A delivery a server has claimed, with what it needs to send it: the body, the endpoint and its secrets. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  payload: string;
  /** Which attempt this is (1 for the first): with the sender's id, the claim that may report back. */
  attempt: number;
  /** When the claim's lease ends: also how long its endpoint's turn (`busy_until`) is this claim's. */
  leaseUntil: string;
  /** Its endpoint, with the secrets that sign now (none when they cannot be opened: the attempt fails, saying so). */
  webhook: Pick<StoredWebhook, 'id' | 'organizationId' | 'url' | 'failingSince'> & { secrets: string[] };
}

/** The claim a report must still hold: the same sender, the same attempt; and the end of the lease it took. */
export interface DeliveryClaim {
  id: string;
  owner: string;
  attempt: number;
  /** `ClaimedDelivery.leaseUntil`: the endpoint's turn this claim took, ended by its report whatever befell the row. */
  leaseUntil: string;
}

type WebhookRow = Selectable<WebhooksTable>;
type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** What a secret sealed with a lost key is replaced by (`plat local forget-secrets`): no secret at all. */
const FORGOTTEN = 'forgotten';
/** Why an endpoint whose secret was discarded is disabled. */
const SECRET_FORGOTTEN_REASON =
  'its secret was sealed with a secret key that was lost (plat local forget-secrets): ' +
  'rotate its secret, then enable it';

function statusOf(r: Pick<DeliveryRow, 'delivered_at' | 'failed_at'>): DeliveryStatus {
  return r.delivered_at ? 'delivered' : r.failed_at ? 'failed' : 'pending';
}

function toDelivery(r: DeliveryRow): StoredDelivery {
  return {
    id: r.id,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    type: r.type,
    status: statusOf(r),
    attempts: Number(r.attempts),
    lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
    lastError: r.last_error,
    // A claimed delivery's lease end is no scheduled attempt.
    nextAttemptAt: r.lease_owner ? null : r.next_attempt_at,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
  };
}

/**
 * Webhook endpoints and their deliveries (docs/webhooks.md): their SQL in one place. Secrets are sealed at rest
 * (they sign every delivery, so they are read back). Deliveries are claimed with a lease, as the mail outbox's are
 * (store/outbox.ts): a server gone leaves them to another after the lease; on PostgreSQL, `SKIP LOCKED` hands each
 * to one server.
 */
export function webhooksStore(q: Q, env: StoreEnv) {
  const { secrets } = env;
  const { dialect } = env.sql;
  const seal = (id: string, secret: string) => secrets.seal(secret, SEALED.webhookSecret(id));
  const openSealed = (id: string, sealed: string) => secrets.open(sealed, SEALED.webhookSecret(id));
  // A secret discarded with a lost key (`forgetSecrets`) reads as '' until the endpoint's secret is rotated.
  const open = (id: string, sealed: string) => (sealed === FORGOTTEN ? '' : openSealed(id, sealed));
  const toWebhook = (r: WebhookRow): StoredWebhook => ({
    id: r.id,
    organizationId: r.org_id,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    description: r.description,
    enabled: Number(r.enabled) === 1,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    secret: open(r.id, r.secret),
    previousSecret: r.previous_secret === null ? null : open(r.id, r.previous_secret) || null,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
  /** The columns of an endpoint that change, secrets sealed. */
  const columns = (w: StoredWebhook) => ({
    url: w.url,
    events: JSON.stringify(w.events),
    description: w.description,
    enabled: w.enabled ? 1 : 0,
    disabled_reason: w.disabledReason,
    failing_since: w.failingSince,
    secret: seal(w.id, w.secret),
    previous_secret: w.previousSecret === null ? null : seal(w.id, w.previousSecret),
    previous_secret_expires_at: w.previousSecretExpiresAt,
    updated_at: w.updatedAt,
  });
  /** Ends an endpoint's turn, if it is still the one taken until `leaseUntil`. */
  const release = async (webhookId: string, leaseUntil: string) => {
    await q
      .updateTable('webhooks')
      .set({ busy_until: null })
      .where('id', '=', webhookId)
      .where('busy_until', '=', leaseUntil)
      .execute();
  };
  /**
   * Ends the endpoint's turn that this claim's attempt took, if it is still that one: by the claim's own lease end,
   * not through the delivery's row — an attempt that outlived its lease (the delivery claimed again meanwhile, then
   * reported delivered by this one, which clears the row's claim) must still let the later claim end the turn it took,
   * or the endpoint would wait that lease out. A later claim's turn ends later: this one's report cannot end it.
   */
  const endTurn = (c: DeliveryClaim & { webhookId: string }) => release(c.webhookId, c.leaseUntil);
  const ours = (c: DeliveryClaim) =>
    q
      .updateTable('webhook_deliveries')
      .where('id', '=', c.id)
      .where('lease_owner', '=', c.owner)
      .where('attempts', '=', c.attempt);

  return {
    /** The organization's endpoints, oldest first. */
    list: async (orgId: string): Promise<StoredWebhook[]> => {
      const rows = await q
        .selectFrom('webhooks')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toWebhook);
    },
    count: async (orgId: string): Promise<number> => {
      const r = await q
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', orgId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /** The organization's endpoint by id, or undefined (another organization's is undefined too). */
    get: async (orgId: string, id: string): Promise<StoredWebhook | undefined> => {
      const r = await q
        .selectFrom('webhooks')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && toWebhook(r);
    },
    insert: async (w: StoredWebhook): Promise<void> => {
      await q
        .insertInto('webhooks')
        .values({ id: w.id, org_id: w.organizationId, created_at: w.createdAt, ...columns(w) })
        .execute();
    },
    /** Writes an endpoint's fields back (its id, organization and creation never change). */
    save: async (w: StoredWebhook): Promise<void> => {
      await q.updateTable('webhooks').set(columns(w)).where('id', '=', w.id).execute();
    },
    /** Removes an endpoint and its deliveries. False when the organization has no such endpoint. */
    delete: async (orgId: string, id: string): Promise<boolean> => {
      await q.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
      const r = await q.deleteFrom('webhooks').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /**
     * Queues the event for every enabled endpoint of its organization that selects its type, in the caller's
     * transaction (the one logging the event): one statement, nothing read back. A delivery's id is made of the
     * event's and the endpoint's (`dlv_<event><endpoint>`): one per pair, and the same in every run of a test.
     */
    fanOut: async (e: { orgId: string; eventId: string; type: string; payload: string; now: string }) => {
      await sql`
        INSERT INTO webhook_deliveries (id, webhook_id, event_id, type, payload, attempts, next_attempt_at, created_at)
        SELECT 'dlv_' || substr(${e.eventId}, 5) || substr(w.id, 4), w.id, ${e.eventId}, ${e.type}, ${e.payload}, 0,
          ${e.now}, ${e.now}
        FROM webhooks w
        WHERE w.org_id = ${e.orgId} AND w.enabled = 1
          AND (w.events = '[]' OR EXISTS (SELECT 1 FROM ${sql.raw(jsonStrings(dialect, 'w.events'))}
            WHERE value = ${e.type}))`.execute(q);
    },
    /** Queues one delivery (a test event): due now. */
    insertDelivery: async (d: {
      id: string;
      webhookId: string;
      eventId: string;
      type: string;
      payload: string;
      now: string;
    }) => {
      await q
        .insertInto('webhook_deliveries')
        .values({
          id: d.id,
          webhook_id: d.webhookId,
          event_id: d.eventId,
          type: d.type,
          payload: d.payload,
          attempts: 0,
          next_attempt_at: d.now,
          created_at: d.now,
        })
        .execute();
    },
    /** One delivery of the endpoint, or undefined. */
    delivery: async (webhookId: string, id: string): Promise<StoredDelivery | undefined> => {
      const r = await q
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && toDelivery(r);
    },
    /** The endpoint's deliveries, newest first; filter `status`. */
    deliveries: async (
      webhookId: string,
      listing: Listing,
      status: DeliveryStatus | undefined,
      next: (p: SortPosition) => string,
    ) => {
      const where = ['webhook_id = ?'];
      if (status === 'delivered') where.push('delivered_at IS NOT NULL');
      if (status === 'failed') where.push('failed_at IS NOT NULL');
      if (status === 'pending') where.push('delivered_at IS NULL AND failed_at IS NULL');
      const spec = newestFirst('webhook_deliveries', where, [webhookId]);
      const { rows, pagination } = await runList<DeliveryRow>(q, spec, listing, next);
      return { data: rows.map(toDelivery), pagination };
    },
    /**
     * Makes a pending or failed delivery due now (a manual retry): a failed one gets one more attempt (its schedule is
     * spent, so failing again fails it). False when it was delivered meanwhile, or an attempt of it is in flight (its
     * lease not over): that attempt is never sent twice.
     */
    dueNow: async (id: string, now: string): Promise<boolean> => {
      const r = await q
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: now, lease_owner: null, failed_at: null })
        .where('id', '=', id)
        .where('delivered_at', 'is', null)
        .where((eb) =>
          eb.or([eb('lease_owner', 'is', null), eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]),
        )
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /**
     * Claims up to `limit` due deliveries for `owner` until `leaseUntil`, one per endpoint, and counts each attempt.
     * An endpoint holds one attempt at a time (`busy_until`, taken in one statement, so two servers cannot both take
     * it): a slow or hanging endpoint holds back its own deliveries only, and the others' go on. Endpoints whose
     * oldest delivery has waited longest come first.
     */
    claim: async (c: { owner: string; now: string; leaseUntil: string; limit: number }): Promise<ClaimedDelivery[]> => {
      const candidates = await q
        .selectFrom('webhooks as w')
        .select('w.id')
        .select((eb) =>
          eb
            .selectFrom('webhook_deliveries as d')
            .whereRef('d.webhook_id', '=', 'w.id')
            .where('d.next_attempt_at', 'is not', null)
            .where('d.next_attempt_at', '<=', c.now)
            .select((e) => e.fn.min('d.next_attempt_at').as('m'))
            .as('oldest'),
        )
        .where('w.enabled', '=', 1)
        .where((eb) => eb.or([eb('w.busy_until', 'is', null), eb('w.busy_until', '<=', c.now)]))
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('webhook_deliveries as d')
              .select('d.id')
              .whereRef('d.webhook_id', '=', 'w.id')
              .where('d.next_attempt_at', 'is not', null)
              .where('d.next_attempt_at', '<=', c.now),
          ),
        )
        .orderBy('oldest')
        .orderBy('w.id')
        .limit(Math.max(1, c.limit) * 2)
        .execute();
      const claimed: ClaimedDelivery[] = [];
      for (const { id: webhookId } of candidates) {
        if (claimed.length >= c.limit) break;
        const took = await q
          .updateTable('webhooks')
          .set({ busy_until: c.leaseUntil })
          .where('id', '=', webhookId)
          .where('enabled', '=', 1)
          .where((eb) => eb.or([eb('busy_until', 'is', null), eb('busy_until', '<=', c.now)]))
          .returningAll()
          .executeTakeFirst();
        if (!took) continue; // another server took it
        const row = await q
          .updateTable('webhook_deliveries')
          .set((eb) => ({ attempts: eb('attempts', '+', 1), lease_owner: c.owner, next_attempt_at: c.leaseUntil }))
          .where('id', '=', (eb) =>
            eb
              .selectFrom('webhook_deliveries as d')
              .where('d.webhook_id', '=', webhookId)
              .where('d.next_attempt_at', 'is not', null)
              .where('d.next_attempt_at', '<=', c.now)
              .select('d.id')
              .orderBy('d.next_attempt_at')
              .orderBy('d.id')
              .limit(1),
          )
          .where('next_attempt_at', '<=', c.now)
          .returning(['id', 'event_id', 'payload', 'attempts'])
          .executeTakeFirst();
        if (!row) {
          await release(webhookId, c.leaseUntil);
          continue;
        }
        const w = took;
        let secrets: string[];
        try {
          const opened = toWebhook(w);
          secrets = [opened.secret];
          if (opened.previousSecret && opened.previousSecretExpiresAt && opened.previousSecretExpiresAt > c.now) {
            secrets.push(opened.previousSecret);
          }
        } catch {
          // A secret that cannot be opened (sealed with another key): the attempt fails, saying so; the others go on.
          secrets = [];
        }
        claimed.push({
          id: row.id,
          eventId: row.event_id,
          payload: row.payload,
          attempt: Number(row.attempts),
          leaseUntil: c.leaseUntil,
          webhook: { id: w.id, organizationId: w.org_id, url: w.url, failingSince: w.failing_since, secrets },
        });
      }
      return claimed;
    },
    /** Every endpoint's id, of every organization (the deliveries' retention walks them). */
    ids: async (): Promise<string[]> =>
      (await q.selectFrom('webhooks').select('id').orderBy('id').execute()).map((r) => r.id),
    /**
     * Removes at most `limit` of the endpoint's deliveries that ended — delivered, or failed with no attempt left —
     * and were made before `before`, oldest first (read from the endpoint's index by time). Returns how many. Whether
     * one ended is asked again of the row deleted: on PostgreSQL a retry by hand (`dueNow`) may have made it pending
     * since the rows were chosen, and the row is then left alone.
     */
    removeEnded: async (webhookId: string, before: string, limit: number): Promise<number> => {
      const ended = (e: ExpressionBuilder<Tables, 'webhook_deliveries'>) =>
        e.and([
          e.or([e('delivered_at', 'is not', null), e('failed_at', 'is not', null)]),
          e('lease_owner', 'is', null),
        ]);
      const r = await q
        .deleteFrom('webhook_deliveries')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('webhook_id', '=', webhookId)
            .where('created_at', '<', before)
            .where(ended)
            .orderBy('created_at')
            .limit(limit),
        )
        .where(ended)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Parks an endpoint's pending deliveries (it is disabled): none is due until `unpark`. */
    park: async (webhookId: string): Promise<void> => {
      await q
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: null })
        .where('webhook_id', '=', webhookId)
        .where('delivered_at', 'is', null)
        .where('failed_at', 'is', null)
        .where('lease_owner', 'is', null)
        .execute();
    },
    /** Makes an endpoint's parked deliveries due now (it is enabled again). */
    unpark: async (webhookId: string, now: string): Promise<void> => {
      await q
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: now })
        .where('webhook_id', '=', webhookId)
        .where('delivered_at', 'is', null)
        .where('failed_at', 'is', null)
        .where('next_attempt_at', 'is', null)
        .execute();
    },
    /** The endpoint answered `2xx`: delivered, whoever holds the delivery now; the endpoint is failing no more. */
    delivered: async (c: DeliveryClaim & { webhookId: string; now: string; statusCode: number }): Promise<void> => {
      await endTurn(c);
      await q
        .updateTable('webhook_deliveries')
        .set({
          delivered_at: c.now,
          failed_at: null,
          next_attempt_at: null,
          lease_owner: null,
          last_status_code: c.statusCode,
          last_error: null,
        })
        .where('id', '=', c.id)
        .where('delivered_at', 'is', null)
        .execute();
      await q.updateTable('webhooks').set({ failing_since: null }).where('id', '=', c.webhookId).execute();
    },
    /**
     * The attempt failed: due again at `at`, or (`at` null) given up. The endpoint is failing since its first failure
     * after a success. False when the claim was no longer the delivery's (its lease had ended).
     */
    failed: async (
      c: DeliveryClaim & {
        webhookId: string;
        now: string;
        at: string | null;
        statusCode: number | null;
        error: string;
      },
    ): Promise<boolean> => {
      await endTurn(c);
      const r = await ours(c)
        .set({
          // Parked (no time) when its endpoint was disabled meanwhile: due again once it is enabled.
          next_attempt_at: (eb) =>
            eb
              .case()
              .when(eb.selectFrom('webhooks').select('enabled').where('id', '=', c.webhookId), '=', 1)
              .then(c.at)
              .else(null)
              .end(),
          failed_at: c.at === null ? c.now : null,
          lease_owner: null,
          last_status_code: c.statusCode,
          last_error: c.error,
        })
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await q
        .updateTable('webhooks')
        .set({ failing_since: c.now })
        .where('id', '=', c.webhookId)
        .where('failing_since', 'is', null)
        .execute();
      return true;
    },
    /**
     * Discards every endpoint's secrets (the key they were sealed with is lost: operations/secrets.ts) and disables
     * the endpoints: nothing is signed again until a rotation gives each a new secret. Returns how many.
     */
    forgetSecrets: async (now: string): Promise<number> => {
      const r = await q
        .updateTable('webhooks')
        .set({
          secret: FORGOTTEN,
          previous_secret: null,
          previous_secret_expires_at: null,
          enabled: 0,
          disabled_reason: SECRET_FORGOTTEN_REASON,
          updated_at: now,
        })
        .where('secret', '<>', FORGOTTEN)
        .executeTakeFirst();
      await q
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: null })
        .where('delivered_at', 'is', null)
        .where('failed_at', 'is', null)
        .where('lease_owner', 'is', null)
        .execute();
      return Number(r.numUpdatedRows);
    },
    /**
     * Disables an endpoint failing since before `before`: true when this call did (its caller records the event).
     */
    disableFailing: async (id: string, before: string, now: string, reason: string): Promise<boolean> => {
      const r = await q
        .updateTable('webhooks')
        .set({ enabled: 0, disabled_reason: reason, updated_at: now })
        .where('id', '=', id)
        .where('enabled', '=', 1)
        .where('failing_since', '<=', before)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}
