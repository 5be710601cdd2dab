import { healthSchema } from '../../../contract/common.js';
import { packageVersion } from '../../../contract/version.js';
import { publicRoute, type RouteDef } from '../route.js';

export const metaRoutes: RouteDef[] = [
  publicRoute({
    method: 'GET',
    path: '/health',
    operationId: 'getHealth',
    summary: 'Liveness of the instance and its mode',
    tag: 'meta',
    access: 'public',
    response: healthSchema,
    handler: (ctx, c) => c.json({ status: 'ok', version: packageVersion(), mode: ctx.mode }),
  }),
];
