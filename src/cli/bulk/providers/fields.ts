// What the providers' mappings share (docs/migrate.md, "What comes across"): reading loosely typed fields, names,
// the metadata kept from the other system, CSV records as objects, and the row made of it all.
import type { ImportedHash } from '../../../contract/users.js';
import { type CsvRecord, checkedRow, failedRow, type Row } from '../import-rows.js';

/** A JSON object (not an array, not null). */
export type Fields = Record<string, unknown>;

/** Whether a value is a JSON object. */
export const isFields = (value: unknown): value is Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A field's text, trimmed; undefined when it is absent, not text, or empty. */
export function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const t = value.trim();
  return t === '' ? undefined : t;
}

/** Whether a field says yes: JSON's `true`, or a CSV cell `true` in any case. */
export const yes = (value: unknown): boolean =>
  value === true || (typeof value === 'string' && value.trim().toLowerCase() === 'true');

/**
 * A person's name: the full name, unless it is only their e-mail address (Auth0 fills `name` with it for database
 * users), else the given and family names joined.
 */
export function personName(
  full: unknown,
  given: unknown,
  family: unknown,
  email: string | undefined,
): string | undefined {
  const whole = text(full);
  if (whole && whole.toLowerCase() !== email?.toLowerCase()) return whole;
  const parts = [text(given), text(family)].filter((p) => p !== undefined);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** Names of keys whose values are, or may hold, secrets: never copied into metadata. */
const SECRET =
  /pass(word|wd)?|secret|token|hash|salt|otp|mfa|backup|recovery|private_?key|api_?key|credential|session|cookie/i;

/** The platform's bounds on metadata (contract/common.ts, `metadataPatchSchema`). */
const MAX_KEYS = 50;
const MAX_KEY = 40;
const MAX_TEXT = 500;

/**
 * The metadata a user brings from another system: the provider's name (`importedFrom`), its id for them and other
 * useful facts first, then the scalar values of its own metadata objects under a prefix (`app.plan`). Whatever does
 * not fit the platform's bounds — a key over 40 characters, text over 500, past 50 keys — is left out, and so is
 * every key that names or may hold a secret (passwords, tokens, TOTP secrets, hashes): a user's metadata is shown.
 */
export class Metadata {
  private readonly values: Record<string, string | number | boolean> = {};

  constructor(provider: string) {
    this.set('importedFrom', provider);
  }

  /** Sets a key (left out when the value is absent, empty or out of bounds). */
  set(key: string, value: unknown): this {
    const v = typeof value === 'string' ? value.trim() : value;
    if (v === undefined || v === null || v === '' || key.length > MAX_KEY) return this;
    if (Object.hasOwn(this.values, key) || Object.keys(this.values).length >= MAX_KEYS) return this;
    if (typeof v === 'string' && v.length <= MAX_TEXT) this.values[key] = v;
    else if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) this.values[key] = v;
    return this;
  }

  /**
   * Copies another system's metadata object, `prefix.KEY` for each of its keys: numbers, booleans and text as they
   * are, arrays and objects as their JSON text (when it fits), secrets never.
   */
  copy(prefix: string, object: unknown): this {
    if (!isFields(object)) return this;
    for (const [key, value] of Object.entries(object)) {
      if (SECRET.test(key) || value === null || value === undefined) continue;
      if (typeof value !== 'object') this.set(`${prefix}.${key}`, value);
      else {
        const json = JSON.stringify(value);
        if (!SECRET.test(json)) this.set(`${prefix}.${key}`, json);
      }
    }
    return this;
  }

  /** The metadata to send (there is always `importedFrom`). */
  get value(): Record<string, string | number | boolean> {
    return { ...this.values };
  }
}

/** What a provider reads of one user, to make a batch item of. */
export interface Person {
  email: string | undefined;
  name?: string | undefined;
  emailVerified?: boolean;
  suspended?: boolean;
  passwordHash?: ImportedHash | undefined;
  metadata: Metadata;
}

/**
 * A person as a row: the item the API is sent (`emailVerified` only when true, `status: "suspended"` only when so),
 * checked as every row is (import-rows.ts).
 */
export function personRow(line: number, p: Person): Row {
  const item: Record<string, unknown> = { email: p.email };
  if (p.name !== undefined) item.name = p.name;
  if (p.emailVerified) item.emailVerified = true;
  if (p.suspended) item.status = 'suspended';
  if (p.passwordHash !== undefined) item.passwordHash = p.passwordHash;
  item.metadata = p.metadata.value;
  return checkedRow(line, item);
}

/** A row refused for its password hash (the message says why, never what the hash is). */
export const hashRefused = (line: number, email: string | undefined, message: string): Row =>
  failedRow(line, email ?? null, 'validation_error', message);

/** What to do about a hash plat cannot verify: said at the end of such a row's message. */
export const WITHOUT_HASH =
  'remove it from the row to import the user without a password (an invitation then lets them set one)';

/** An element that is not an object, as a row. */
export const notAnObject = (line: number): Row =>
  failedRow(line, null, 'validation_error', 'expected an object (one user)');

/**
 * How a provider's CSV header is read: each record becomes an object of its non-empty cells by column name, which
 * `row` maps. The header must name one of the `emails` columns (else the file is refused), and no column twice.
 */
export function csvObjects(
  header: readonly string[],
  emails: readonly string[],
  row: (line: number, fields: Fields) => Row,
): CsvRecord | string {
  const names = header.map((h) => h.trim());
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) return `the column "${twice}" appears twice`;
  const at = names.findIndex((n) => emails.includes(n));
  if (at < 0) return `no ${emails.join(' or ')} column: the header must name one`;
  return (line, cells) => {
    if (cells.length !== names.length) {
      const email = cells[at] || null;
      const fields = `${cells.length} ${cells.length === 1 ? 'field' : 'fields'}`;
      return failedRow(line, email, 'invalid_request', `${fields} where the header has ${names.length}`);
    }
    const fields: Fields = {};
    names.forEach((n, i) => {
      if (cells[i] !== '') fields[n] = cells[i];
    });
    return row(line, fields);
  };
}
