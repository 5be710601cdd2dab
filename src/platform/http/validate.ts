import type * as z from 'zod';
import { detailsOf, invalidFields, PlatformError, summary } from '../errors.js';
import { parseJsonText, unstorablePart } from './json.js';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * Validates a JSON body, given as text with its `Content-Type` (docs/api.md, "Errors"): no body, wrong content type,
 * malformed JSON, JSON nested too deep or a missing required field is `400 invalid_request`; a field present but
 * invalid (or unknown) is `422 validation_error`. The body's size was bounded while it was read (incoming.ts).
 */
export function parseBody<S extends z.ZodType>(text: string, contentType: string | null, schema: S): z.output<S> {
  if (text.trim() === '') throw new PlatformError('invalid_request', 'a JSON request body is required');
  const type = contentType ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new PlatformError('invalid_request', 'Content-Type must be application/json');
  }
  const json = parseJsonText(text);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new PlatformError('invalid_request', 'the request body must be a JSON object');
  }
  const unstorable = unstorablePart(json);
  if (unstorable) {
    const { path, problem } = unstorable;
    throw new PlatformError('validation_error', `${path}: ${problem}`, {
      details: [{ field: path, message: problem }],
    });
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const details = detailsOf(result.error);
  // A required field that is absent: zod reports `invalid_type`, `invalid_value` for an enum or literal, or
  // `invalid_union` for the field a union of objects is told apart by (`protocol` of an SSO configuration).
  const absent = result.error.issues.filter(
    (i) =>
      (i.code === 'invalid_type' || i.code === 'invalid_value' || i.code === 'invalid_union') &&
      valueAt(json, i.path) === undefined,
  );
  if (absent.length > 0) {
    const fields = absent.map((i) => i.path.join('.'));
    throw new PlatformError('invalid_request', `missing required field: ${fields.join(', ')}`, { details });
  }
  throw invalidFields(details);
}

/** Validates the query string: any problem is `400 invalid_request` naming the parameter. A repeated parameter too. */
export function parseQuery<S extends z.ZodType>(searchParams: URLSearchParams, schema: S): z.output<S> {
  const raw: Record<string, string> = {};
  for (const [key, value] of searchParams) {
    if (key in raw) {
      throw new PlatformError('invalid_request', `${key}: given more than once`, {
        details: [{ field: key, message: 'given more than once' }],
      });
    }
    raw[key] = value;
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const details = detailsOf(result.error).map((d) =>
    d.message === 'unknown field' ? { ...d, message: 'unknown query parameter' } : d,
  );
  throw new PlatformError('invalid_request', `invalid query parameter ${summary(details)}`, { details });
}

/** Validates path parameters: an identifier of the wrong form names nothing, so it is `404`. */
export function parseParams<S extends z.ZodType>(params: Record<string, string>, schema: S): z.output<S> {
  const result = schema.safeParse(params);
  if (!result.success) throw new PlatformError('not_found', 'resource not found');
  return result.data;
}
