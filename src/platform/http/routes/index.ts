import type { RouteDef } from '../route.js';
import { apiKeysRoutes } from './api-keys.js';
import { authRoutes, oauthRoutes } from './auth.js';
import { domainsRoutes } from './domains.js';
import { environmentsRoutes } from './environments.js';
import { eventsRoutes } from './events.js';
import { invitationsRoutes } from './invitations.js';
import { membersRoutes } from './members.js';
import { metaRoutes } from './meta.js';
import { mfaRoutes } from './mfa.js';
import { mfaPagesRoutes } from './mfa-pages.js';
import { organizationRoutes } from './organizations.js';
import { projectsRoutes } from './projects.js';
import { scimRoutes } from './scim.js';
import { scimProtocolRoutes } from './scim-protocol.js';
import { sessionsRoutes } from './sessions.js';
import { ssoRoutes } from './sso.js';
import { ssoSignInRoutes } from './sso-sign-in.js';
import { teamsRoutes } from './teams.js';
import { userRoutes } from './users.js';
import { webhooksRoutes } from './webhooks.js';

/** Every route of the API, in the order the reference lists them: each endpoint of the contract with its handler. */
export const ROUTES: readonly RouteDef[] = [
  ...metaRoutes,
  ...oauthRoutes,
  ...mfaPagesRoutes,
  ...authRoutes,
  ...organizationRoutes,
  ...userRoutes,
  ...invitationsRoutes,
  ...teamsRoutes,
  ...projectsRoutes,
  ...membersRoutes,
  ...environmentsRoutes,
  ...sessionsRoutes,
  ...mfaRoutes,
  ...apiKeysRoutes,
  ...ssoRoutes,
  ...ssoSignInRoutes,
  ...domainsRoutes,
  ...scimRoutes,
  ...scimProtocolRoutes,
  ...eventsRoutes,
  ...webhooksRoutes,
];
