// What a SCIM request's body may be before any handler reads it: JSON of bounded depth, with no key that would reach
// an object's prototype (`__proto__`, `constructor`, `prototype`) when the document is patched.
import { UNSAFE_NAMES } from './document.js';
import { badRequest } from './errors.js';

/** How deep a SCIM document nests: RFC 7643's resources go three levels down; this leaves room for extensions. */
const MAX_DEPTH = 16;

/** The body's JSON, checked (`400 invalidSyntax` or `invalidValue` saying why); undefined for an empty body. */
export function scimBody(text: string): unknown {
  if (text === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest('invalidSyntax', 'the body is not JSON');
  }
  // Walked with a stack of its own: a body nested 100,000 deep overflows no call stack.
  const stack: [unknown, number][] = [[body, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) throw badRequest('invalidSyntax', `the body nests deeper than ${MAX_DEPTH} levels`);
    if (Array.isArray(value)) {
      for (const v of value) stack.push([v, depth + 1]);
      continue;
    }
    for (const [key, v] of Object.entries(value)) {
      // A dotted or URN key (`name.givenName`, `urn:…:manager`) is checked part by part.
      if (key.split(/[.:]/).some((part) => UNSAFE_NAMES.has(part.toLowerCase()))) {
        throw badRequest('invalidValue', `${JSON.stringify(key)} is no attribute`);
      }
      stack.push([v, depth + 1]);
    }
  }
  return body;
}
