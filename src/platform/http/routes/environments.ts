import type { RouteDef } from '../route.js';

export const environmentsRoutes: RouteDef[] = [];
