// SCIM filters (RFC 7644 §3.4.2.2): parsed by scim2-parse-filter (its `parse` only), evaluated here over a resource
// as the service provider represents it — attribute names case-insensitively, strings case-insensitively unless the
// attribute is case-exact, and a value path `emails[type eq "work" and value co "@x"]` element by element.
import { type Filter, parse } from 'scim2-parse-filter';
import { field } from './document.js';
import { badRequest } from './errors.js';

/** The longest filter taken: far more than any identity provider sends, and a bound on the parser's recursion. */
const MAX_FILTER_LENGTH = 4096;

/** A parsed filter; `400 invalidFilter` saying why when it is not one. */
export function parseFilter(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH)
    throw badRequest('invalidFilter', `a filter is at most ${MAX_FILTER_LENGTH} characters`);
  let ast: Filter;
  try {
    ast = parse(text);
  } catch (err) {
    // Microsoft Entra ID once sent `externalId eq jyoung`, the value unquoted: one comparison of one word is read
    // as the string it means.
    const bare = /^\s*([\w.:$-]+)\s+(eq|ne|co|sw|ew)\s+([^\s"()[\]]+)\s*$/i.exec(text);
    if (bare && !/^(true|false|null|-?\d+(\.\d+)?)$/i.test(bare[3] as string)) {
      return parseFilter(`${bare[1]} ${bare[2]} ${JSON.stringify(bare[3])}`);
    }
    const why = err instanceof RangeError ? 'nested too deeply' : (err as Error).message;
    throw badRequest('invalidFilter', `the filter cannot be read: ${why}`);
  }
  return foldValuePaths(ast);
}

/**
 * Microsoft Entra ID writes `emails[type eq "work"].value eq "x"`, which the parser reads as `emails[type eq "work"]
 * and emails.value eq "x"`: the two are folded into one value path, so that both hold of the same element.
 */
function foldValuePaths(f: Filter): Filter {
  if (f.op === 'not') return { op: 'not', filter: foldValuePaths(f.filter) };
  if (f.op === '[]') return { ...f, valFilter: foldValuePaths(f.valFilter) };
  if (f.op !== 'and' && f.op !== 'or') return f;
  const filters = f.filters.map(foldValuePaths);
  if (f.op === 'and') {
    for (let i = 0; i + 1 < filters.length; i++) {
      const [a, b] = [filters[i] as Filter, filters[i + 1] as Filter];
      if (
        a.op === '[]' &&
        b.op !== '[]' &&
        'attrPath' in b &&
        b.attrPath.toLowerCase().startsWith(`${a.attrPath.toLowerCase()}.`)
      ) {
        const sub = { ...b, attrPath: b.attrPath.slice(a.attrPath.length + 1) } as Filter;
        filters.splice(i, 2, { ...a, valFilter: { op: 'and', filters: [a.valFilter, sub] } });
      }
    }
    if (filters.length === 1) return filters[0] as Filter;
  }
  return { op: f.op, filters };
}

/** The attributes whose string values compare case-exactly (the rest compare in any case, RFC 7643 §2.2). */
const CASE_EXACT = new Set(['id', 'externalid', 'meta.version']);

/**
 * The values at an attribute path: `userName`, `name.givenName`, `emails.value` (each element's), and the extension
 * form `urn:…:User:department` (its schema's object, then the attribute).
 */
function valuesAt(resource: unknown, path: string): unknown[] {
  let root = resource;
  let rest = path;
  const urn = /^(urn:[^[\]]+):([^:.]+(?:\.[^:.]+)?)$/i.exec(path);
  if (urn) {
    root = field(resource, urn[1] as string);
    rest = urn[2] as string;
  }
  let values: unknown[] = [root];
  for (const part of rest.split('.')) {
    values = values.flatMap((v) => {
      const next = field(v, part);
      return Array.isArray(next) ? next : next === undefined ? [] : [next];
    });
  }
  return values;
}

function compare(op: string, actual: unknown, expected: unknown, caseExact: boolean): boolean {
  if (typeof actual === 'string' && typeof expected === 'string') {
    const [a, e] = caseExact ? [actual, expected] : [actual.toLowerCase(), expected.toLowerCase()];
    switch (op) {
      case 'eq':
        return a === e;
      case 'ne':
        return a !== e;
      case 'co':
        return a.includes(e);
      case 'sw':
        return a.startsWith(e);
      case 'ew':
        return a.endsWith(e);
      case 'gt':
        return a > e;
      case 'ge':
        return a >= e;
      case 'lt':
        return a < e;
      case 'le':
        return a <= e;
    }
    return false;
  }
  // Booleans and numbers compare by value; a string "true" is the boolean an identity provider meant.
  const norm = (v: unknown) => (typeof v === 'string' && /^(true|false)$/i.test(v) ? v.toLowerCase() === 'true' : v);
  const [a, e] = [norm(actual), norm(expected)];
  switch (op) {
    case 'eq':
      return a === e;
    case 'ne':
      return a !== e;
    case 'gt':
      return typeof a === 'number' && typeof e === 'number' && a > e;
    case 'ge':
      return typeof a === 'number' && typeof e === 'number' && a >= e;
    case 'lt':
      return typeof a === 'number' && typeof e === 'number' && a < e;
    case 'le':
      return typeof a === 'number' && typeof e === 'number' && a <= e;
  }
  return false;
}

/** Whether `resource` (as the service provider represents it) matches the filter. */
export function matches(f: Filter, resource: unknown): boolean {
  switch (f.op) {
    case 'and':
      return f.filters.every((g) => matches(g, resource));
    case 'or':
      return f.filters.some((g) => matches(g, resource));
    case 'not':
      return !matches(f.filter, resource);
    case '[]':
      return valuesAt(resource, f.attrPath).some((element) => matches(f.valFilter, element));
    case 'pr':
      return valuesAt(resource, f.attrPath).some(
        (v) => v !== null && v !== '' && !(Array.isArray(v) && v.length === 0),
      );
    default: {
      // A complex value compared as a whole is compared by its `value` (`members eq "user_…"`, as Entra asks).
      const values = valuesAt(resource, f.attrPath).map((v) =>
        v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, 'value')
          ? (v as { value: unknown }).value
          : v,
      );
      const caseExact = CASE_EXACT.has(f.attrPath.toLowerCase());
      // `ne` holds when no value equals (an absent attribute is not equal to anything).
      if (f.op === 'ne') return !values.some((v) => compare('eq', v, f.compValue, caseExact));
      return values.some((v) => compare(f.op, v, f.compValue, caseExact));
    }
  }
}

/** The value `userName eq "…"` (alone, or in a top-level `and`) asks for, to read one member instead of all. */
export function userNameAskedFor(f: Filter): string | undefined {
  if (f.op === 'eq' && f.attrPath.toLowerCase() === 'username' && typeof f.compValue === 'string') return f.compValue;
  if (f.op === 'and') {
    for (const g of f.filters) {
      const found = userNameAskedFor(g);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
