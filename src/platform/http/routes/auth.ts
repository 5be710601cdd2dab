import type { RouteDef } from '../route.js';

export const authRoutes: RouteDef[] = [];
