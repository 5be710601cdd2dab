// Amazon Cognito (docs/migrate.md, "Amazon Cognito"). Cognito exports no password hashes: its users come without one,
// pending as any import's, and set a password through their invitation. Two files, told apart by their content:
// - a CSV with the header of the user pool's import template
//   (https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-user-pools-using-import-tool-csv-header.html,
//   `aws cognito-idp get-csv-header`): cognito:username, name, given_name, family_name, middle_name, nickname,
//   preferred_username, profile, picture, website, email, email_verified, gender, birthdate, zoneinfo, locale,
//   phone_number, phone_number_verified, address, updated_at, cognito:mfa_enabled, and `custom:` attributes;
// - the JSON `aws cognito-idp list-users --user-pool-id ID` prints: `{"Users": [ … ]}`, each a UserType
//   (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_UserType.html): Username,
//   Attributes [{ Name, Value }] (the same attribute names, and `sub`), UserCreateDate, UserLastModifiedDate, Enabled
//   (false: disabled, so suspended here), UserStatus, MFAOptions (not read).
import type { Row } from '../import-rows.js';
import {
  csvObjects,
  type Fields,
  isFields,
  Metadata,
  notAnObject,
  personName,
  personRow,
  text,
  yes,
} from './fields.js';
import type { Provider } from './provider.js';

/** A user's attributes (by their Cognito names) and what ListUsers says of the account, as a row. */
function cognitoRow(line: number, attributes: Fields, account: Fields = {}): Row {
  const email = text(attributes.email);
  const metadata = new Metadata('cognito')
    .set('cognitoUsername', text(account.Username) ?? text(attributes['cognito:username']))
    .set('cognitoSub', text(attributes.sub))
    .set('cognitoStatus', text(account.UserStatus))
    .set('cognitoCreatedAt', account.UserCreateDate)
    .set('preferredUsername', text(attributes.preferred_username))
    .set('phone', text(attributes.phone_number))
    .set('locale', text(attributes.locale))
    .set('zoneinfo', text(attributes.zoneinfo));
  const custom = Object.fromEntries(
    Object.entries(attributes)
      .filter(([k]) => k.startsWith('custom:'))
      .map(([k, v]) => [k.slice('custom:'.length), v]),
  );
  metadata.copy('custom', custom);
  return personRow(line, {
    email,
    name: personName(attributes.name, attributes.given_name, attributes.family_name, email),
    emailVerified: yes(attributes.email_verified),
    suspended: account.Enabled === false,
    metadata,
  });
}

/** A ListUsers user: its `Attributes` list as an object by name. */
function listedRow(line: number, value: unknown): Row {
  if (!isFields(value)) return notAnObject(line);
  const list = Array.isArray(value.Attributes) ? value.Attributes : [];
  const attributes: Fields = {};
  for (const a of list) if (isFields(a) && typeof a.Name === 'string') attributes[a.Name] = a.Value;
  return cognitoRow(line, attributes, value);
}

/** Cognito's files: its import template's CSV, or ListUsers' JSON (`{"Users": [ … ]}`). */
export const cognito: Provider = {
  name: 'cognito',
  title: 'Amazon Cognito',
  layouts: ['csv', 'member'],
  member: 'Users',
  reads:
    'plat reads a CSV with the header `aws cognito-idp get-csv-header` prints, or the JSON of ' +
    '`aws cognito-idp list-users` ({"Users": [ … ]})',
  records: () => ({
    json: listedRow,
    csv: (header) => csvObjects(header, ['email'], (line, fields) => cognitoRow(line, fields)),
  }),
};
