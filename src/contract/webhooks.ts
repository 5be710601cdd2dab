import * as z from 'zod';
import { lazySchema, pagingQueryShape, timestampSchema } from './common.js';

// Webhook endpoints and their deliveries (docs/webhooks.md): each audit-log event of an organization POSTed to the
// endpoints that select it, signed as Standard Webhooks (standardwebhooks.com) specify.

/** How many webhook endpoints one organization may have. */
export const WEBHOOKS_PER_ORGANIZATION = 20;

/** The event a `POST /webhooks/{webhookId}/test` sends: to that endpoint only, never in the audit log. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * The waits before each retry after a failed attempt, Standard Webhooks' schedule: 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h — eight attempts in all, the last about 28 hours after the first.
 */
export const RETRY_SCHEDULE_MS = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6] as const;

/** How long an endpoint may fail every attempt before it is disabled (event `webhook.disabled`). */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;

/** How long a delivery that ended (delivered or failed) is kept after it was made: then `plat serve` removes it. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

/** An event type an endpoint selects: `user.created`, `webhook.test`… (lower case, dot-separated words). */
export const eventTypeSchema = z
  .string()
  .max(100)
  .regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, 'must be an event type such as user.created');

/** Where deliveries go: an absolute URL, checked further by the platform (`https`, or `http` to this machine). */
const webhookUrlSchema = z.string().min(1).max(2000);

export const webhookSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    organizationId: z.string(),
    url: z.string(),
    events: z.array(z.string()).meta({ description: 'The event types sent here; `[]`: every type.' }),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().meta({
      description: 'Why the platform disabled it (5 days of failures); null when enabled, or disabled by hand.',
    }),
    failingSince: timestampSchema
      .nullable()
      .meta({ description: 'The first failed attempt since the last success: it is disabled 5 days after.' }),
    previousSecretExpiresAt: timestampSchema
      .nullable()
      .meta({ description: 'Until when the secret before the last rotation still signs beside the new one.' }),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
).meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof webhookSchema>;

/** A webhook endpoint with its signing secret: answered on creation and on rotation only. */
export const webhookWithSecretSchema = lazySchema(() =>
  webhookSchema.unwrap().extend({
    secret: z.string().meta({ description: '`whsec_<base64>`: the key of the signatures. Shown here only: keep it.' }),
  }),
).meta({ id: 'WebhookWithSecret' });
export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>;

const eventsSchema = z.array(eventTypeSchema).max(100);
const descriptionSchema = z.string().max(500).nullable();

export const webhookCreateSchema = lazySchema(() =>
  z.strictObject({
    url: webhookUrlSchema,
    events: eventsSchema.optional(),
    description: descriptionSchema.optional(),
    enabled: z.boolean().optional(),
  }),
).meta({ id: 'WebhookCreate' });
export type WebhookCreate = z.infer<typeof webhookCreateSchema>;

export const webhookUpdateSchema = lazySchema(() =>
  z.strictObject({
    url: webhookUrlSchema.optional(),
    events: eventsSchema.optional(),
    description: descriptionSchema.optional(),
    enabled: z.boolean().optional(),
  }),
).meta({ id: 'WebhookUpdate' });
export type WebhookUpdate = z.infer<typeof webhookUpdateSchema>;

/** `pending` while scheduled attempts remain, `delivered` once one was answered `2xx`, `failed` after the last. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const deliverySchema = lazySchema(() =>
  z.object({
    id: z.string(),
    webhookId: z.string(),
    eventId: z.string().meta({ description: 'The event sent: also the `webhook-id` header, the same on every retry.' }),
    type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable().meta({ description: "The last attempt's HTTP status, if it got one." }),
    lastError: z.string().nullable().meta({ description: 'Why the last attempt failed, if it did.' }),
    nextAttemptAt: timestampSchema.nullable(),
    createdAt: timestampSchema,
    deliveredAt: timestampSchema.nullable(),
  }),
).meta({ id: 'WebhookDelivery' });
export type Delivery = z.infer<typeof deliverySchema>;

export const deliveryListQuerySchema = lazySchema(() =>
  z.strictObject({
    cursor: pagingQueryShape.cursor,
    limit: pagingQueryShape.limit,
    status: z.enum(DELIVERY_STATUSES).optional(),
  }),
);
export type DeliveryListQuery = z.infer<typeof deliveryListQuerySchema>;

/**
 * The body each delivery POSTs (docs/webhooks.md, "Payloads"), also what `plat events listen` forwards: the event's
 * type, its time, and the audit log's record of it, as JSON.
 */
export function webhookBody(e: { type: string; createdAt: string }): string {
  return JSON.stringify({ type: e.type, timestamp: e.createdAt, data: e });
}
