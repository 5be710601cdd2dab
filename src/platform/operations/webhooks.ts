import type { CursorPagination, List } from '../../contract/common.js';
import { PER_PAGE_DEFAULT } from '../../contract/common.js';
import { newWebhookSecret } from '../../contract/webhook-signature.js';
import {
  type Delivery,
  type DeliveryListQuery,
  ROTATION_OVERLAP_MS,
  TEST_EVENT_TYPE,
  WEBHOOKS_PER_ORGANIZATION,
  type Webhook,
  type WebhookCreate,
  type WebhookUpdate,
  type WebhookWithSecret,
  webhookBody,
} from '../../contract/webhooks.js';
import type { Ctx } from '../context.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { resolveListing } from '../store/paging.js';
import type { StoredDelivery, StoredWebhook } from '../store/webhooks.js';
import { AddressError, checkWebhookUrl, maskedWebhookUrl } from '../webhooks/addresses.js';

// Webhook endpoints of an organization (docs/webhooks.md). What is sent, and when, is the delivery's
// (webhooks/delivery.ts); these operations keep the endpoints and let people look at, retry and test deliveries.

/** The record the API shows: never a secret. */
export function webhookRecord(w: StoredWebhook): Webhook {
  return {
    id: w.id,
    organizationId: w.organizationId,
    url: w.url,
    events: w.events,
    description: w.description,
    enabled: w.enabled,
    disabledReason: w.disabledReason,
    failingSince: w.failingSince,
    previousSecretExpiresAt: w.previousSecret ? w.previousSecretExpiresAt : null,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

function deliveryRecord(d: StoredDelivery): Delivery {
  return { ...d };
}

/** `url` checked (`422` naming it when refused), normalised. */
async function checkedUrl(url: string): Promise<string> {
  try {
    return await checkWebhookUrl(url);
  } catch (err) {
    if (err instanceof AddressError) throw invalidField('url', err.message);
    throw err;
  }
}

/** Event types once each, in the order given. */
const distinct = (types: readonly string[]) => [...new Set(types)];

/** `GET /organizations/{orgId}/webhooks`. */
export async function listWebhooks(ctx: Ctx, orgId: string): Promise<Pick<List<Webhook>, 'data'>> {
  return { data: (await ctx.stores.webhooks.list(orgId)).map(webhookRecord) };
}

/** `POST /organizations/{orgId}/webhooks`: the endpoint with its secret, shown this once. */
export async function createWebhook(ctx: Ctx, orgId: string, input: WebhookCreate): Promise<WebhookWithSecret> {
  const url = await checkedUrl(input.url);
  return ctx.tx(async (ctx) => {
    if ((await ctx.stores.webhooks.count(orgId)) >= WEBHOOKS_PER_ORGANIZATION) {
      throw conflict(`an organization has at most ${WEBHOOKS_PER_ORGANIZATION} webhook endpoints: remove one first`);
    }
    const now = ctx.now();
    const w: StoredWebhook = {
      id: ctx.ids('webhook'),
      organizationId: orgId,
      url,
      events: distinct(input.events ?? []),
      description: input.description ?? null,
      enabled: input.enabled ?? true,
      disabledReason: null,
      failingSince: null,
      secret: newWebhookSecret(),
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await ctx.stores.webhooks.insert(w);
    await ctx.emit(
      'webhook.created',
      { type: 'webhook', id: w.id },
      { url: maskedWebhookUrl(url), events: w.events, enabled: w.enabled },
    );
    return { ...webhookRecord(w), secret: w.secret };
  });
}

/** An endpoint of the acting organization, or `404`. */
async function loadWebhook(ctx: Ctx, webhookId: string): Promise<StoredWebhook> {
  const w = await ctx.stores.webhooks.get(ctx.principal.orgId, webhookId);
  if (!w) throw notFound('webhook');
  return w;
}

/** `GET /webhooks/{webhookId}`. */
export async function getWebhook(ctx: Ctx, webhookId: string): Promise<Webhook> {
  return webhookRecord(await loadWebhook(ctx, webhookId));
}

/** `PATCH /webhooks/{webhookId}`: enabling one starts its failing days afresh. */
export async function updateWebhook(ctx: Ctx, webhookId: string, input: WebhookUpdate): Promise<Webhook> {
  const url = input.url === undefined ? undefined : await checkedUrl(input.url);
  return ctx.tx(async (ctx) => {
    const w = await loadWebhook(ctx, webhookId);
    const changed: Record<string, unknown> = {};
    const next: StoredWebhook = { ...w };
    if (url !== undefined && url !== w.url) {
      next.url = url;
      changed.url = maskedWebhookUrl(url);
    }
    if (input.events !== undefined) next.events = changed.events = distinct(input.events);
    if (input.description !== undefined) next.description = changed.description = input.description;
    if (input.enabled === true && w.secret === '') {
      throw conflict('this endpoint has no secret (it was sealed with a lost key): rotate its secret first');
    }
    if (input.enabled !== undefined && input.enabled !== w.enabled) {
      next.enabled = changed.enabled = input.enabled;
      next.disabledReason = null;
      if (input.enabled) next.failingSince = null;
    }
    if (Object.keys(changed).length === 0) return webhookRecord(w);
    next.updatedAt = ctx.now();
    await ctx.stores.webhooks.save(next);
    // A disabled endpoint's deliveries wait, out of the queue, until it is enabled again; then they are due at once.
    if (changed.enabled === false) await ctx.stores.webhooks.park(w.id);
    if (changed.enabled === true) await ctx.stores.webhooks.unpark(w.id, next.updatedAt);
    await ctx.emit('webhook.updated', { type: 'webhook', id: w.id }, changed);
    return webhookRecord(next);
  });
}

/** `DELETE /webhooks/{webhookId}`: the endpoint and its deliveries go. */
export async function deleteWebhook(ctx: Ctx, webhookId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const w = await loadWebhook(ctx, webhookId);
    await ctx.stores.webhooks.delete(w.organizationId, w.id);
    await ctx.emit('webhook.deleted', { type: 'webhook', id: w.id }, { url: maskedWebhookUrl(w.url) });
  });
}

/** `POST /webhooks/{webhookId}/rotate-secret`: a new secret; the one it replaces signs beside it for 24 hours. */
export async function rotateWebhookSecret(ctx: Ctx, webhookId: string): Promise<WebhookWithSecret> {
  return ctx.tx(async (ctx) => {
    const w = await loadWebhook(ctx, webhookId);
    const now = ctx.clock().getTime();
    const next: StoredWebhook = {
      ...w,
      secret: newWebhookSecret(),
      // An endpoint whose secret was discarded (a lost key) has none to keep signing with.
      previousSecret: w.secret === '' ? null : w.secret,
      previousSecretExpiresAt: w.secret === '' ? null : new Date(now + ROTATION_OVERLAP_MS).toISOString(),
      updatedAt: new Date(now).toISOString(),
    };
    await ctx.stores.webhooks.save(next);
    await ctx.emit(
      'webhook.secret_rotated',
      { type: 'webhook', id: w.id },
      {
        previousSecretExpiresAt: next.previousSecretExpiresAt,
      },
    );
    return { ...webhookRecord(next), secret: next.secret };
  });
}

/** `POST /webhooks/{webhookId}/test`: a `webhook.test` event for this endpoint only, never in the audit log. */
export async function testWebhook(ctx: Ctx, webhookId: string): Promise<Delivery> {
  return ctx.tx(async (ctx) => {
    const w = await loadWebhook(ctx, webhookId);
    if (!w.enabled) throw conflict('this webhook endpoint is disabled: enable it first');
    const now = ctx.now();
    const eventId = ctx.ids('event');
    const data = {
      id: eventId,
      type: TEST_EVENT_TYPE,
      organizationId: w.organizationId,
      actor: {
        type: ctx.principal.type === 'api_key' ? 'api_key' : 'user',
        id: ctx.principal.keyId ?? ctx.principal.userId,
      },
      target: { type: 'webhook', id: w.id },
      requestId: ctx.requestId,
      createdAt: now,
      data: { message: 'A test event sent by POST /webhooks/{webhookId}/test.' },
    };
    const id = ctx.ids('delivery');
    const payload = webhookBody(data);
    await ctx.stores.webhooks.insertDelivery({ id, webhookId: w.id, eventId, type: TEST_EVENT_TYPE, payload, now });
    return deliveryRecord((await ctx.stores.webhooks.delivery(w.id, id)) as StoredDelivery);
  });
}

/** `GET /webhooks/{webhookId}/deliveries`: newest first, cursor paging. */
export async function listDeliveries(
  ctx: Ctx,
  webhookId: string,
  q: DeliveryListQuery,
): Promise<{ data: Delivery[]; pagination: CursorPagination }> {
  const w = await loadWebhook(ctx, webhookId);
  const scope = `deliveries:${w.id}`;
  const listing = resolveListing(
    ctx.cursors,
    scope,
    { cursor: q.cursor, limit: q.limit ?? PER_PAGE_DEFAULT },
    { status: q.status },
    {},
  );
  const status = listing.filters.status as Delivery['status'] | undefined;
  const { data, pagination } = await ctx.stores.webhooks.deliveries(w.id, listing, status, (pos) =>
    ctx.cursors.encode(scope, listing.filters, pos),
  );
  return { data: data.map(deliveryRecord), pagination: pagination as CursorPagination };
}

/** `POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry`: due now; `409` once delivered or while disabled. */
export async function retryDelivery(ctx: Ctx, webhookId: string, deliveryId: string): Promise<Delivery> {
  return ctx.tx(async (ctx) => {
    const w = await loadWebhook(ctx, webhookId);
    const d = await ctx.stores.webhooks.delivery(w.id, deliveryId);
    if (!d) throw notFound('delivery');
    if (d.status === 'delivered') throw conflict('this delivery was delivered: there is nothing to retry');
    if (!w.enabled) throw conflict('this webhook endpoint is disabled: enable it first');
    if (!(await ctx.stores.webhooks.dueNow(d.id, ctx.now()))) {
      throw conflict('an attempt of this delivery is in flight: read it again once it has an outcome');
    }
    await ctx.emit('webhook.delivery_retried', { type: 'webhook', id: w.id }, { deliveryId: d.id, eventId: d.eventId });
    return deliveryRecord((await ctx.stores.webhooks.delivery(w.id, d.id)) as StoredDelivery);
  });
}
