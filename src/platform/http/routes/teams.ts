import type { RouteDef } from '../route.js';

export const teamsRoutes: RouteDef[] = [];
