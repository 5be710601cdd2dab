import { apiKeysStore } from './api-keys.js';
import { authStore } from './auth.js';
import { domainsStore } from './domains.js';
import { eventsStore } from './events.js';
import { invitationsStore } from './invitations.js';
import { mfaStore } from './mfa.js';
import { organizationsStore } from './organizations.js';
import { outboxStore } from './outbox.js';
import { projectsStore } from './projects.js';
import { scimStore } from './scim.js';
import { sessionsStore } from './sessions.js';
import type { Q, StoreEnv } from './sql.js';
import { ssoStore } from './sso.js';
import { ssoSignInStore } from './sso-sign-in.js';
import { teamsStore } from './teams.js';
import { usersStore } from './users.js';
import { webhooksStore } from './webhooks.js';

const FACTORIES = {
  organizations: organizationsStore,
  users: usersStore,
  invitations: invitationsStore,
  outbox: outboxStore,
  teams: teamsStore,
  projects: projectsStore,
  sessions: sessionsStore,
  mfa: mfaStore,
  apiKeys: apiKeysStore,
  events: eventsStore,
  webhooks: webhooksStore,
  sso: ssoStore,
  domains: domainsStore,
  scim: scimStore,
  ssoSignIn: ssoSignInStore,
  auth: authStore,
};

/** Every store over one database. */
export type Stores = { readonly [K in keyof typeof FACTORIES]: ReturnType<(typeof FACTORIES)[K]> };

/**
 * Every store, running its queries on `q` (the database, or a transaction), each built on first use and then kept:
 * a transaction that touches two stores does not build them all.
 */
export function createStores(q: Q, env: StoreEnv): Stores {
  const stores = {} as Record<string, unknown>;
  for (const [name, factory] of Object.entries(FACTORIES)) {
    Object.defineProperty(stores, name, {
      enumerable: true,
      get() {
        const store = (factory as (q: Q, env: StoreEnv) => unknown)(q, env);
        Object.defineProperty(stores, name, { value: store, enumerable: true });
        return store;
      },
      configurable: true,
    });
  }
  return stores as Stores;
}
