import type { RouteDef } from '../route.js';

export const apiKeysRoutes: RouteDef[] = [];
