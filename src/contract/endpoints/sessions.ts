import { plainListSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { revokeAllQuerySchema, revokeAllResultSchema, sessionSchema } from '../sessions.js';
import { sessionParams, userParams } from './params.js';

const tag = 'sessions';
const OWN = 'Everyone may use this on their own sessions';

export const sessions = {
  list: endpoint({
    method: 'GET',
    path: '/users/{userId}/sessions',
    operationId: 'listSessions',
    summary: "List a user's active sessions",
    description:
      'Sessions neither revoked nor expired, in the acting organization, newest first. `current` marks the session ' +
      'of the calling access token.',
    tag,
    access: 'sessions:read',
    scope: 'self',
    accessNote: `${OWN} (a restricted key or token still needs sessions:read); other users' need sessions:read.`,
    params: userParams,
    response: plainListSchema(sessionSchema),
  }),
  revoke: endpoint({
    method: 'DELETE',
    path: '/users/{userId}/sessions/{sessionId}',
    operationId: 'revokeSession',
    summary: 'Revoke one session: its refresh tokens stop working, its access tokens fail on their next use',
    tag,
    access: 'sessions:write',
    scope: 'self',
    accessNote:
      `${OWN} (a restricted key or token still needs sessions:write); other users' need sessions:write, ` +
      "and only owners may revoke an owner's. Revoking an already revoked or expired session answers 204.",
    params: sessionParams,
    status: 204,
  }),
  revokeAll: endpoint({
    method: 'DELETE',
    path: '/users/{userId}/sessions',
    operationId: 'revokeAllSessions',
    summary: "Revoke all of a user's active sessions, optionally keeping the caller's current one",
    description:
      '`keepCurrent=true` keeps the session of the calling access token (it only matters for your own sessions). ' +
      'Answers how many sessions were revoked.',
    tag,
    access: 'sessions:write',
    scope: 'self',
    accessNote: `${OWN} (a restricted key or token still needs sessions:write); other users' need sessions:write, and only owners may revoke an owner's.`,
    params: userParams,
    query: revokeAllQuerySchema,
    response: revokeAllResultSchema,
  }),
} as const;
