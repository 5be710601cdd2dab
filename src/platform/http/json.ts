import { PlatformError } from '../errors.js';

/** The deepest nesting of arrays and objects a JSON body may have (docs/api.md, "Bounds on what clients send"). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than {@link MAX_JSON_DEPTH}: one pass over the characters,
 * brackets inside strings skipped, stopping at the first level too deep. Checked before parsing, so that nothing that
 * walks the value (a recursive walk would overflow the stack) ever sees such a value, and no time goes into parsing it.
 */
export function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      // After a backslash the next character is escaped, a quote included.
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return false;
}

/**
 * Parses a JSON request body: `400 invalid_request` when it is not JSON or nests deeper than {@link MAX_JSON_DEPTH}
 * levels.
 */
export function parseJsonText(text: string): unknown {
  if (nestsTooDeep(text)) {
    throw new PlatformError('invalid_request', `the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new PlatformError('invalid_request', 'the request body is not valid JSON');
  }
}

/** A value still to look into, with its parent and key (to rebuild the path of what is found). */
type Visit = { value: unknown; parent: Visit | undefined; key: string };

/** What a request body may not hold, and where (a path such as `a.b.__proto__`). */
export type Unstorable = { path: string; problem: string };

/** A NUL character, or half of a UTF-16 surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorableText = (s: string) => s.includes('\u0000') || LONE_SURROGATE.test(s);

/**
 * The first key or text of a parsed value that cannot be kept as sent, found without recursion (each value visited
 * once, a path built only for what is found):
 * - a `__proto__` key: JSON.parse keeps it as an own key, but zod and object spreads would silently drop it;
 * - a NUL character or a lone surrogate (`"\u0000"`, `"\ud800"` in JSON): PostgreSQL's text holds neither, and SQLite
 *   would keep what PostgreSQL refuses — the same body must get the same answer from either.
 * Refusing them is better than storing something other than what was sent.
 */
export function unstorablePart(value: unknown): Unstorable | undefined {
  const stack: Visit[] = [{ value, parent: undefined, key: '' }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const v = visit.value;
    if (typeof v === 'string') {
      if (unstorableText(v)) return { path: pathOf(visit), problem: TEXT_PROBLEM };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const keys = Object.keys(v);
    if (keys.includes('__proto__')) {
      return {
        path: pathOf({ value: undefined, parent: visit, key: '__proto__' }),
        problem: '"__proto__" cannot be used as a key',
      };
    }
    const odd = keys.find(unstorableText);
    if (odd !== undefined)
      return { path: pathOf({ value: undefined, parent: visit, key: odd }), problem: TEXT_PROBLEM };
    // Pushed in reverse, so that keys are looked into in their order.
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      stack.push({ value: (v as Record<string, unknown>)[key], parent: visit, key });
    }
  }
  return undefined;
}

const TEXT_PROBLEM = 'text cannot hold a NUL character (\\u0000) or half of a UTF-16 surrogate pair';

function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let v: Visit | undefined = visit; v?.parent; v = v.parent) keys.push(v.key);
  return keys.reverse().join('.');
}
