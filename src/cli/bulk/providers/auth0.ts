// Auth0 (docs/migrate.md, "Auth0"). Three files, told apart by their content, not their names:
// - the NDJSON of a user export job (https://auth0.com/docs/manage-users/user-migration/bulk-user-exports: "Our
//   JSON-compatible export files are in NDJSON format"): one user a line, each field under the name of the normalized
//   user profile (https://auth0.com/docs/manage-users/user-accounts/user-profiles/normalized-user-profiles) — user_id,
//   email, email_verified, name, given_name, family_name, username, blocked, created_at, last_login, app_metadata,
//   user_metadata — or under the `export_as` the job gave it;
// - a JSON array in the bulk-import schema
//   (https://auth0.com/docs/manage-users/user-migration/bulk-user-import-database-schema-and-examples): the same names,
//   with `password_hash` or `custom_password_hash` (auth0-hashes.ts);
// - the NDJSON of a password-hash export from Auth0's support
//   (https://support.auth0.com/center/s/article/How-to-Use-the-Password-Hashes-Export-from-Auth0): `_id.$oid`,
//   `alt_id`, `email`, `email_verified`, `passwordHash` (bcrypt), `connection`, and `identifiers` [{ type: "email",
//   value, verified }] where the root lacks the e-mail; its user id is `auth0|` and `alt_id`, else `_id.$oid`.
// Never read: `mfa_factors` and `multifactor` (MFA secrets), `identities` (social providers' access tokens).
import type { Row } from '../import-rows.js';
import { auth0Hash } from './auth0-hashes.js';
import { type Fields, hashRefused, isFields, Metadata, notAnObject, personName, personRow, text } from './fields.js';
import type { Provider } from './provider.js';

/** The e-mail identifier of a support export's user: `{ type: "email", value, verified }`. */
function emailIdentifier(user: Fields): Fields | undefined {
  const ids = Array.isArray(user.identifiers) ? user.identifiers : [];
  return ids.find((i): i is Fields => isFields(i) && i.type === 'email' && text(i.value) !== undefined);
}

/** The user's Auth0 id: `user_id`, or a support export's `auth0|` + `alt_id` or `_id.$oid`. */
function userId(user: Fields): string | undefined {
  const given = text(user.user_id);
  if (given) return given;
  const oid = isFields(user._id) ? text(user._id.$oid) : text(user._id);
  const id = text(user.alt_id) ?? oid;
  return id === undefined ? undefined : `auth0|${id}`;
}

/** One Auth0 user, from any of the three files, as a row. */
export function auth0Row(line: number, value: unknown): Row {
  if (!isFields(value)) return notAnObject(line);
  const identifier = emailIdentifier(value);
  const email = text(value.email) ?? text(identifier?.value);
  const verified =
    value.email_verified === true || (email === text(identifier?.value) && identifier?.verified === true);
  const hash = auth0Hash(value);
  if ('problem' in hash) return hashRefused(line, email, hash.problem);
  const metadata = new Metadata('auth0')
    .set('auth0UserId', userId(value))
    .set('auth0Username', text(value.username))
    .set('auth0Connection', text(value.connection))
    .set('auth0CreatedAt', text(value.created_at))
    .set('auth0LastLogin', text(value.last_login))
    .copy('app', value.app_metadata)
    .copy('user', value.user_metadata);
  return personRow(line, {
    email,
    name: personName(value.name, value.given_name, value.family_name, email),
    emailVerified: verified,
    suspended: value.blocked === true,
    passwordHash: hash.hash,
    metadata,
  });
}

const READS =
  'plat reads the JSON lines of an Auth0 user export job (format "json"), a JSON array in its bulk-import ' +
  "schema, or the JSON lines of a password-hash export from Auth0's support";

/** Auth0's files: JSON lines (export job, support export) or a JSON array (bulk-import schema); no CSV. */
export const auth0: Provider = {
  name: 'auth0',
  title: 'Auth0',
  layouts: ['lines', 'array'],
  reads: READS,
  records: () => ({ json: auth0Row, csv: () => READS }),
};
