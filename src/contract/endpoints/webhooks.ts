import { cursorListSchema, plainListSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import {
  deliveryListQuerySchema,
  deliverySchema,
  webhookCreateSchema,
  webhookSchema,
  webhookUpdateSchema,
  webhookWithSecretSchema,
} from '../webhooks.js';
import { deliveryParams, orgParams, webhookParams } from './params.js';

const tag = 'webhooks';

export const webhooks = {
  list: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/webhooks',
    operationId: 'listWebhooks',
    summary: 'List the webhook endpoints of an organization, oldest first (never their secrets)',
    tag,
    access: 'webhooks:read',
    params: orgParams,
    response: plainListSchema(webhookSchema),
  }),
  create: endpoint({
    method: 'POST',
    path: '/organizations/{orgId}/webhooks',
    operationId: 'createWebhook',
    summary: 'Add a webhook endpoint; its signing `secret` is in this response only',
    description:
      'Each event of the organization that `events` selects (all when empty or left out) is POSTed to `url`, signed ' +
      'as Standard Webhooks specify (docs/webhooks.md). `url` must be `https`, or `http` to this machine (422 ' +
      'otherwise); an organization has at most 20 endpoints (409).',
    tag,
    access: 'webhooks:write',
    alsoRequires: ['events:read'],
    accessNote: 'Also needs events:read: the endpoint receives the audit log.',
    params: orgParams,
    body: webhookCreateSchema,
    status: 201,
    location: { get: 'getWebhook' },
    response: webhookWithSecretSchema,
    secret: true,
  }),
  get: endpoint({
    method: 'GET',
    path: '/webhooks/{webhookId}',
    operationId: 'getWebhook',
    summary: 'Get a webhook endpoint (never its secret)',
    tag,
    access: 'webhooks:read',
    params: webhookParams,
    response: webhookSchema,
  }),
  update: endpoint({
    method: 'PATCH',
    path: '/webhooks/{webhookId}',
    operationId: 'updateWebhook',
    summary: 'Change a webhook endpoint: its URL, events, description, or whether it is enabled',
    description: 'Enabling an endpoint the platform disabled starts its count of failing days afresh.',
    tag,
    access: 'webhooks:write',
    alsoRequires: ['events:read'],
    accessNote: 'Also needs events:read: the endpoint receives the audit log.',
    params: webhookParams,
    body: webhookUpdateSchema,
    response: webhookSchema,
  }),
  delete: endpoint({
    method: 'DELETE',
    path: '/webhooks/{webhookId}',
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook endpoint and its deliveries: nothing more is sent to it',
    tag,
    access: 'webhooks:write',
    params: webhookParams,
    status: 204,
  }),
  rotateSecret: endpoint({
    method: 'POST',
    path: '/webhooks/{webhookId}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Give a webhook endpoint a new secret; the old one keeps signing beside it for 24 hours',
    description:
      'During the overlap each delivery carries two signatures (`webhook-signature` space-separated), so receivers ' +
      'can switch to the new secret at their pace. The new `secret` is in this response only.',
    tag,
    access: 'webhooks:write',
    params: webhookParams,
    response: webhookWithSecretSchema,
    secret: true,
  }),
  test: endpoint({
    method: 'POST',
    path: '/webhooks/{webhookId}/test',
    operationId: 'testWebhook',
    summary: 'Send a `webhook.test` event to this endpoint only (not recorded in the audit log)',
    description:
      'Answers `202` with the delivery, `pending`: the server sends it at once; read it back to see how it went.',
    tag,
    access: 'webhooks:write',
    params: webhookParams,
    status: 202,
    response: deliverySchema,
  }),
  deliveries: endpoint({
    method: 'GET',
    path: '/webhooks/{webhookId}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "List a webhook endpoint's deliveries, newest first",
    description:
      'Cursor paging (`limit` 1–100, default 20, and `cursor`); filter `status`. A delivery that ended (delivered or ' +
      'failed) is kept 30 days after it was made; one still pending, until it ends.',
    tag,
    access: 'webhooks:read',
    params: webhookParams,
    query: deliveryListQuerySchema,
    response: cursorListSchema(deliverySchema),
  }),
  retry: endpoint({
    method: 'POST',
    path: '/webhooks/{webhookId}/deliveries/{deliveryId}/retry',
    operationId: 'retryWebhookDelivery',
    summary: 'Attempt a pending or failed delivery now',
    description:
      'A failed delivery gets one more attempt (if it fails too, it is `failed` again); a pending one is attempted ' +
      'now and keeps the rest of its schedule. A delivered one is a `409`; so is one on a disabled endpoint (enable ' +
      'it first).',
    tag,
    access: 'webhooks:write',
    params: deliveryParams,
    status: 202,
    response: deliverySchema,
  }),
} as const;
