import type { RouteDef } from '../route.js';
import { metaRoutes } from './meta.js';
import { organizationRoutes } from './organizations.js';
import { userRoutes } from './users.js';

/** Every route of the API, in the order the reference lists them. */
export const ROUTES: readonly RouteDef[] = [...metaRoutes, ...organizationRoutes, ...userRoutes];
