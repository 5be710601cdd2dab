import * as z from 'zod';
import { lazySchema, pagingQueryShape, timestampSchema } from './common.js';

export const eventSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    type: z.string(),
    organizationId: z.string(),
    actor: z.object({ type: z.enum(['user', 'api_key', 'scim_token', 'system']), id: z.string() }),
    target: z.object({ type: z.string(), id: z.string() }).nullable(),
    requestId: z.string().nullable(),
    createdAt: timestampSchema,
    data: z.record(z.string(), z.unknown()),
  }),
).meta({ id: 'Event' });
export type Event = z.infer<typeof eventSchema>;

export const eventListQuerySchema = lazySchema(() =>
  z.strictObject({
    cursor: pagingQueryShape.cursor,
    limit: pagingQueryShape.limit,
    type: z.string().max(100).optional(),
    since: z.iso.datetime({ offset: true }).optional(),
  }),
);
export type EventListQuery = z.infer<typeof eventListQuerySchema>;
