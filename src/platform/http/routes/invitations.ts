import type { RouteDef } from '../route.js';

export const invitationsRoutes: RouteDef[] = [];
