import { apiKeys } from './api-keys.js';
import { auth, oauth } from './auth.js';
import { domains } from './domains.js';
import { environments } from './environments.js';
import { events } from './events.js';
import { invitations } from './invitations.js';
import { members } from './members.js';
import { meta } from './meta.js';
import { mfa } from './mfa.js';
import { mfaPages } from './mfa-pages.js';
import { organizations } from './organizations.js';
import { projects } from './projects.js';
import { scim } from './scim.js';
import { sessions } from './sessions.js';
import { sso } from './sso.js';
import { ssoSignIn } from './sso-sign-in.js';
import { teams } from './teams.js';
import { users } from './users.js';
import { webhooks } from './webhooks.js';

/**
 * Every endpoint of the API a credential calls (JSON in, JSON out), by group: the client's methods are these groups,
 * under these names (`client.users.list`).
 */
export const API = {
  organizations,
  users,
  invitations,
  teams,
  projects,
  members,
  environments,
  sessions,
  mfa,
  apiKeys,
  sso,
  domains,
  scim,
  events,
  webhooks,
  auth,
} as const;

/** The endpoints browsers, identity providers and OAuth clients call without an API credential. */
export const PUBLIC = { meta, oauth, mfaPages, ssoSignIn } as const;

export type Api = typeof API;
