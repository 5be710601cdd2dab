import type { RouteDef } from '../route.js';

export const eventsRoutes: RouteDef[] = [];
