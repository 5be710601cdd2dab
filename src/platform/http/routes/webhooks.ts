import { webhooks } from '../../../contract/endpoints/webhooks.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from '../../operations/webhooks.js';
import { bind } from '../route.js';

export const webhooksRoutes = bind(webhooks, {
  list: (ctx, { params }) => listWebhooks(ctx, params.orgId),
  create: (ctx, { params, body }) => createWebhook(ctx, params.orgId, body),
  get: (ctx, { params }) => getWebhook(ctx, params.webhookId),
  update: (ctx, { params, body }) => updateWebhook(ctx, params.webhookId, body),
  delete: (ctx, { params }) => deleteWebhook(ctx, params.webhookId),
  rotateSecret: (ctx, { params }) => rotateWebhookSecret(ctx, params.webhookId),
  test: (ctx, { params }) => testWebhook(ctx, params.webhookId),
  deliveries: (ctx, { params, query }) => listDeliveries(ctx, params.webhookId, query),
  retry: (ctx, { params }) => retryDelivery(ctx, params.webhookId, params.deliveryId),
});
