import type { RouteDef } from '../route.js';

export const sessionsRoutes: RouteDef[] = [];
