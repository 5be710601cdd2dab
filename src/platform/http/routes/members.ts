import type { RouteDef } from '../route.js';

export const membersRoutes: RouteDef[] = [];
