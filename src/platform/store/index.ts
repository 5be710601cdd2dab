import { apiKeysStore } from './api-keys.js';
import { authStore } from './auth.js';
import type { Db } from './db.js';
import { eventsStore } from './events.js';
import { invitationsStore } from './invitations.js';
import { organizationsStore } from './organizations.js';
import { outboxStore } from './outbox.js';
import { projectsStore } from './projects.js';
import type { SecretBox } from './secret-box.js';
import { sessionsStore } from './sessions.js';
import { ssoStore } from './sso.js';
import { ssoSignInStore } from './sso-sign-in.js';
import { teamsStore } from './teams.js';
import { usersStore } from './users.js';

const FACTORIES = {
  organizations: organizationsStore,
  users: usersStore,
  invitations: invitationsStore,
  outbox: outboxStore,
  teams: teamsStore,
  projects: projectsStore,
  sessions: sessionsStore,
  apiKeys: apiKeysStore,
  events: eventsStore,
  sso: ssoStore,
  ssoSignIn: ssoSignInStore,
  auth: authStore,
};

/** Every store over one database. */
export type Stores = { readonly [K in keyof typeof FACTORIES]: ReturnType<(typeof FACTORIES)[K]> };

/**
 * Every store over one database, each built (its statements prepared) on first use and then kept: a CLI command
 * that touches two stores does not prepare the statements of all eleven. `secrets` seals what the stores must read
 * back (store/secret-box.ts).
 */
export function createStores(db: Db, secrets: SecretBox): Stores {
  const stores = {} as Record<string, unknown>;
  for (const [name, factory] of Object.entries(FACTORIES)) {
    Object.defineProperty(stores, name, {
      enumerable: true,
      get() {
        const store = (factory as (db: Db, secrets: SecretBox) => unknown)(db, secrets);
        Object.defineProperty(stores, name, { value: store, enumerable: true });
        return store;
      },
      configurable: true,
    });
  }
  return stores as Stores;
}
