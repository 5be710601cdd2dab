import type { RouteDef } from '../route.js';

export const projectsRoutes: RouteDef[] = [];
