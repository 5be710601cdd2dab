import { PlatformError } from '../errors.js';

/** The deepest nesting of arrays and objects a JSON body may have (contract §2). */
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

/**
 * The path (`a.b.__proto__`) of the first `__proto__` key in a parsed value, found without recursion: each value is
 * visited once, and a path is built only for the key found. JSON.parse keeps `__proto__` as an own key, but zod and
 * object spreads would silently drop it: refusing it is better than storing something other than what was sent.
 */
export function reservedKeyPath(value: unknown): string | undefined {
  const stack: Visit[] = [{ value, parent: undefined, key: '' }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const v = visit.value;
    if (v === null || typeof v !== 'object') continue;
    const keys = Object.keys(v);
    if (keys.includes('__proto__')) return pathOf({ value: undefined, parent: visit, key: '__proto__' });
    // Pushed in reverse, so that keys are looked into in their order.
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      stack.push({ value: (v as Record<string, unknown>)[key], parent: visit, key });
    }
  }
  return undefined;
}

function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let v: Visit | undefined = visit; v?.parent; v = v.parent) keys.push(v.key);
  return keys.reverse().join('.');
}
