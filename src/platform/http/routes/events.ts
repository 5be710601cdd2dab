import * as z from 'zod';
import { cursorPaginationSchema, lazySchema } from '../../../contract/common.js';
import { eventListQuerySchema, eventSchema } from '../../../contract/events.js';
import { listEvents } from '../../operations/events.js';
import { type RouteDef, route } from '../route.js';
import { orgParams } from './params.js';

export const eventsRoutes: RouteDef[] = [
  route({
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
    response: lazySchema(() => z.object({ data: z.array(eventSchema), pagination: cursorPaginationSchema })),
    handler: (ctx, { params, query }) => listEvents(ctx, params.orgId, query),
  }),
];
