import * as z from 'zod';
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
    answers: { 200: { description: 'Up', body: healthSchema } },
  }),
} as const;

/** The OpenAPI document itself: served by the request pipeline beside the route table it is made from (http/pipeline.ts). */
export const openapiDocument = endpoint({
  method: 'GET',
  path: '/openapi.json',
  operationId: 'getOpenApi',
  summary: 'This document: the OpenAPI 3.1 description of every operation',
  tag: 'meta',
  access: 'public',
  answers: {
    200: { description: 'The OpenAPI 3.1 document', body: z.looseObject({ openapi: z.literal('3.1.0') }) },
  },
});
