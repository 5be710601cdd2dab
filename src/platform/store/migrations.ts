import { SCHEMA as apiKeys } from './api-keys.js';
import { SCHEMA as auth } from './auth.js';
import { SCHEMA as events } from './events.js';
import { SCHEMA as invitations } from './invitations.js';
import { SCHEMA as limits } from './limits.js';
import { SCHEMA as organizations } from './organizations.js';
import { SCHEMA as projects } from './projects.js';
import { SCHEMA as sessions } from './sessions.js';
import { SCHEMA as sso } from './sso.js';
import { SCHEMA as teams } from './teams.js';
import { SCHEMA as users } from './users.js';

/**
 * The schema's history, oldest first; migration N takes `PRAGMA user_version` from N-1 to N.
 * Never edit a migration that has shipped: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  [
    'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);',
    organizations,
    users,
    invitations,
    teams,
    projects,
    sessions,
    apiKeys,
    events,
    sso,
    auth,
    limits,
  ].join('\n'),
];
