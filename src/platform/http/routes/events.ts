import { events } from '../../../contract/endpoints/events.js';
import { listEvents } from '../../operations/events.js';
import { bind } from '../route.js';

export const eventsRoutes = bind(events, {
  list: (ctx, { params, query }) => listEvents(ctx, params.orgId, query),
});
