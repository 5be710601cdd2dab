import { apiKeysStore } from './api-keys.js';
import { authStore } from './auth.js';
import type { Db } from './db.js';
import { eventsStore } from './events.js';
import { invitationsStore } from './invitations.js';
import { organizationsStore } from './organizations.js';
import { outboxStore } from './outbox.js';
import { projectsStore } from './projects.js';
import { sessionsStore } from './sessions.js';
import { ssoStore } from './sso.js';
import { teamsStore } from './teams.js';
import { usersStore } from './users.js';

/** Every store over one database, each with its statements prepared once. */
export function createStores(db: Db) {
  return {
    organizations: organizationsStore(db),
    users: usersStore(db),
    invitations: invitationsStore(db),
    outbox: outboxStore(db),
    teams: teamsStore(db),
    projects: projectsStore(db),
    sessions: sessionsStore(db),
    apiKeys: apiKeysStore(db),
    events: eventsStore(db),
    sso: ssoStore(db),
    auth: authStore(db),
  };
}
export type Stores = ReturnType<typeof createStores>;
