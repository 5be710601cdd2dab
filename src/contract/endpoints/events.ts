import { cursorListSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { eventListQuerySchema, eventSchema } from '../events.js';
import { orgParams } from './params.js';

export const events = {
  list: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/events',
    operationId: 'listEvents',
    summary: 'List the audit log of an organization, newest first',
    description:
      'One event per write, with its actor, target and request id. Cursor paging only (`limit` 1–100, default 20, ' +
      'and `cursor`); filters `type` (exact) and `since` (inclusive timestamp).',
    tag: 'events',
    access: 'events:read',
    params: orgParams,
    query: eventListQuerySchema,
    response: cursorListSchema(eventSchema),
  }),
} as const;
