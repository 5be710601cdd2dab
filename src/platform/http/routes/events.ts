import { events } from '../../../contract/endpoints/events.js';
import { streamEvents } from '../../operations/event-stream.js';
import { listEvents } from '../../operations/events.js';
import { bind } from '../route.js';

export const eventsRoutes = bind(events, {
  list: (ctx, { params, query }) => listEvents(ctx, params.orgId, query),
  stream: (ctx, { params, header }) => streamEvents(ctx, params.orgId, header('last-event-id')),
});
