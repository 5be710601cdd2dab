// SCIM PATCH (RFC 7644 §3.5.2), in the shapes identity providers send: operation names in any case; a value object
// without a path (Okta's `{"active": false}`, Entra's `{"name.givenName": …}` and extension URNs as keys); paths with
// a value filter (`emails[type eq "work"].value`, `members[value eq "…"]`). Applied to a resource's JSON document;
// the caller maps the document back to the platform's records.
import type { Filter } from 'scim2-parse-filter';
import { type Doc, isObject, UNSAFE_NAMES } from './document.js';
import { badRequest } from './errors.js';
import { matches, parseFilter } from './filter.js';

export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** A parsed path: an attribute (with its schema URN, if one was named), an optional filter, an optional sub-attribute. */
interface Path {
  urn?: string;
  attr: string;
  filter?: Filter;
  sub?: string;
}

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove';
  path?: Path;
  value?: unknown;
}

/** At most this many operations in one PATCH. */
const MAX_OPERATIONS = 1000;

/** `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`, each optionally after a schema URN (`urn:…:User:dept`). */
export function parsePath(text: string): Path {
  let rest = text.trim();
  let urn: string | undefined;
  const urnMatch = /^(urn:[^[\]]*):([^:[\]]+(?:\[.*\])?(?:\.[^:.[\]]+)?)$/i.exec(rest);
  if (urnMatch) {
    urn = urnMatch[1];
    rest = urnMatch[2] as string;
  } else if (/^urn:/i.test(rest)) {
    // The URN of an extension alone: the whole extension.
    return { attr: rest };
  }
  const m = /^([A-Za-z$][\w$-]*)(?:\[(.*)\])?(?:\.([A-Za-z$][\w$-]*))?$/.exec(rest);
  if (!m) throw badRequest('invalidPath', `the path ${JSON.stringify(text)} cannot be read`);
  const [, attr, filter, sub] = m;
  return {
    ...(urn && { urn }),
    attr: attr as string,
    ...(filter !== undefined && { filter: parseFilter(filter) }),
    ...(sub && { sub }),
  };
}

/** The operations of a PATCH body; `400 invalidSyntax` when it has none or is not one. */
export function parsePatch(body: unknown): PatchOperation[] {
  const ops =
    (body as { Operations?: unknown; operations?: unknown } | null)?.Operations ??
    (body as { operations?: unknown } | null)?.operations;
  if (!Array.isArray(ops) || ops.length === 0) {
    throw badRequest('invalidSyntax', 'a PATCH needs "Operations": a list of add, replace or remove');
  }
  if (ops.length > MAX_OPERATIONS) throw badRequest('tooMany', `at most ${MAX_OPERATIONS} operations`);
  return ops.map((o, i) => {
    const op = typeof o?.op === 'string' ? o.op.toLowerCase() : undefined;
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw badRequest('invalidSyntax', `Operations[${i}].op must be add, replace or remove`);
    }
    const path = typeof o.path === 'string' && o.path.trim() !== '' ? parsePath(o.path) : undefined;
    if (op === 'remove' && !path) throw badRequest('noTarget', `Operations[${i}]: remove needs a path`);
    if (op !== 'remove' && o.value === undefined) throw badRequest('invalidValue', `Operations[${i}] has no value`);
    if (!path && !isObject(o.value)) {
      throw badRequest('invalidValue', `Operations[${i}]: without a path, the value must be an object of attributes`);
    }
    return { op, ...(path && { path }), ...(o.value !== undefined && { value: o.value }) };
  });
}

/** The key of `doc` that is `name` in any case, or `name` itself when there is none (its own keys only). */
function keyOf(doc: Doc, name: string): string {
  if (UNSAFE_NAMES.has(name.toLowerCase())) throw badRequest('invalidPath', `${JSON.stringify(name)} is no attribute`);
  const lower = name.toLowerCase();
  return Object.keys(doc).find((k) => k.toLowerCase() === lower) ?? name;
}

function objectAt(doc: Doc, name: string): Doc {
  const key = keyOf(doc, name);
  const v = Object.hasOwn(doc, key) ? doc[key] : undefined;
  if (isObject(v)) return v;
  const made: Doc = {};
  doc[key] = made;
  return made;
}

/** Adds `values` to a multi-valued attribute, leaving out those equal to one it holds (by `value` when they have it). */
function append(doc: Doc, key: string, values: unknown[]): void {
  const held = Array.isArray(doc[key]) ? (doc[key] as unknown[]) : [];
  const same = (a: unknown, b: unknown) => {
    const [va, vb] = [(a as Doc | null)?.value, (b as Doc | null)?.value];
    return va !== undefined && vb !== undefined ? String(va) === String(vb) : JSON.stringify(a) === JSON.stringify(b);
  };
  doc[key] = [...held, ...values.filter((v) => !held.some((h) => same(h, v)))];
}

/** Sets one attribute of `doc` (a dotted `name.givenName` sets a sub-attribute). */
function set(doc: Doc, op: 'add' | 'replace', name: string, value: unknown): void {
  const dot = name.indexOf('.');
  if (dot > 0 && !/^urn:/i.test(name)) {
    set(objectAt(doc, name.slice(0, dot)), op, name.slice(dot + 1), value);
    return;
  }
  const key = keyOf(doc, name);
  if (op === 'add' && Array.isArray(value)) {
    append(doc, key, value);
  } else if (op === 'add' && isObject(value) && /^urn:/i.test(name)) {
    Object.assign(objectAt(doc, key), value);
  } else {
    doc[key] = value;
  }
}

/** The document an extension's attributes live in, or the document itself. */
function scope(doc: Doc, urn: string | undefined): Doc {
  return urn ? objectAt(doc, urn) : doc;
}

/** Applies one operation to the document. */
export function apply(doc: Doc, o: PatchOperation): void {
  if (!o.path) {
    for (const [name, value] of Object.entries(o.value as Doc)) {
      if (/^urn:/i.test(name) && isObject(value)) {
        Object.assign(objectAt(doc, name), value);
      } else if (/^urn:.*:[^:]+$/i.test(name) && !name.endsWith(':User') && !name.endsWith(':Group')) {
        const cut = name.lastIndexOf(':');
        set(objectAt(doc, name.slice(0, cut)), o.op as 'add' | 'replace', name.slice(cut + 1), value);
      } else {
        set(doc, o.op as 'add' | 'replace', name, value);
      }
    }
    return;
  }
  const { urn, attr, filter, sub } = o.path;
  const target = scope(doc, urn);
  const key = keyOf(target, attr);
  if (!filter) {
    if (o.op === 'remove') {
      if (sub) {
        const inner = target[key];
        if (isObject(inner)) delete (inner as Doc)[keyOf(inner as Doc, sub)];
      } else if (Array.isArray(o.value) && Array.isArray(target[key])) {
        // Entra removes members with the path `members` and the ones to remove as the value.
        const gone = new Set(o.value.map((v) => String((v as Doc | null)?.value ?? v)));
        target[key] = (target[key] as unknown[]).filter((e) => !gone.has(String((e as Doc | null)?.value ?? e)));
      } else {
        delete target[key];
      }
      return;
    }
    set(target, o.op, sub ? `${attr}.${sub}` : attr, o.value);
    return;
  }
  const list = Array.isArray(target[key]) ? (target[key] as Doc[]) : [];
  // Only elements that are objects can hold the sub-attribute a filter path names.
  const chosen = list.filter((e) => isObject(e) && matches(filter, e));
  if (o.op === 'remove') {
    target[key] = sub ? list : list.filter((e) => !chosen.includes(e));
    if (sub) for (const e of chosen) delete e[keyOf(e, sub)];
    return;
  }
  if (chosen.length === 0) {
    // Entra sets `phoneNumbers[type eq "work"].value` on a user without one: the element is made from the filter.
    if (!sub || filter.op !== 'eq') throw badRequest('noTarget', `${attr}[…] names no value to change`);
    target[key] = [...list, { [filter.attrPath]: filter.compValue, [sub]: o.value }];
    return;
  }
  for (const e of chosen) {
    if (sub) e[keyOf(e, sub)] = o.value;
    else if (isObject(o.value)) Object.assign(e, o.value);
  }
}

/** Applies every operation in turn. */
export function applyAll(doc: Doc, ops: readonly PatchOperation[]): Doc {
  for (const o of ops) apply(doc, o);
  return doc;
}
