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
  stream: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/events/stream',
    operationId: 'streamEvents',
    summary: "Follow the organization's audit log as Server-Sent Events",
    description:
      'Each event as `id: evt_…`, `event: <type>`, `data: <the event as JSON>`, in the order they were written (on ' +
      'PostgreSQL, by transaction). ' +
      'Without `Last-Event-ID`, only events from now on; with it, every event after that one (nothing missed, ' +
      "nothing twice; an id of no event of the organization is a `400`). First comes the stream's starting point, " +
      'a block with only an id (`id: pos_…`, no data): sent back in `Last-Event-ID`, it resumes there. A comment ' +
      'every 15 s keeps the connection ' +
      'open. A key restricted to some projects reads no event about another project, as in the events list.',
    tag: 'events',
    access: 'events:read',
    params: orgParams,
    stream: 'sse',
  }),
} as const;
