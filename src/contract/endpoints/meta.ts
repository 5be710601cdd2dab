import { healthSchema } from '../common.js';
import { endpoint } from '../endpoint.js';

export const meta = {
  health: endpoint({
    method: 'GET',
    path: '/health',
    operationId: 'getHealth',
    summary: 'Liveness of the instance and its mode',
    tag: 'meta',
    access: 'public',
    response: healthSchema,
  }),
} as const;
