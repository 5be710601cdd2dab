import { sessions } from '../../../contract/endpoints/sessions.js';
import { listSessions, revokeAllSessions, revokeSession } from '../../operations/sessions.js';
import { bind } from '../route.js';

export const sessionsRoutes = bind(sessions, {
  list: (ctx, { params }) => listSessions(ctx, params.userId),
  revoke: (ctx, { params }) => revokeSession(ctx, params.userId, params.sessionId),
  revokeAll: (ctx, { params, query }) => revokeAllSessions(ctx, params.userId, query.keepCurrent === 'true'),
});
