import type { RouteDef } from '../route.js';

export const ssoRoutes: RouteDef[] = [];
