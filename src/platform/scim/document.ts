// A SCIM resource as JSON (RFC 7643 §2: attribute names in any case), and what every SCIM module reads of one.
import { badRequest } from './errors.js';

export type Doc = Record<string, unknown>;

/** Names that would reach an object's prototype rather than an attribute: never an attribute's name. */
export const UNSAFE_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether a value is a JSON object (not null, not a list). */
export const isObject = (v: unknown): v is Doc => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The attribute of `obj` named `name` in any case (its own attributes only); undefined when it has none. */
export function field(obj: unknown, name: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** A request's body as a resource document; `400 invalidSyntax` when it is no JSON object. */
export function asDocument(body: unknown): Doc {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'the body must be a JSON object');
  return body;
}
