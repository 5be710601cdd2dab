// Firebase Authentication (docs/migrate.md, "Firebase"): the JSON `firebase auth:export FILE --format=json` writes. The
// Firebase CLI's source says what it holds (firebase/firebase-tools): src/commands/auth-export.ts writes the object
// around the users, `{"users": [` … `]}`; src/accountExporter.ts writes each user with the keys of EXPORTED_JSON_KEYS —
// localId, email, emailVerified, passwordHash, salt, displayName, photoUrl, lastSignedInAt (lastLoginAt renamed),
// createdAt, phoneNumber, disabled, customAttributes — and providerUserInfo [{ providerId, rawId, email, displayName,
// photoUrl }]; passwordHash and salt in standard base64 (convertToNormalBase64), and only for the hashes of Firebase's
// own scrypt (a user whose hash is of another version is written without one); a file made otherwise may have them in
// URL-safe base64, sent as standard base64 (the platform reads that alone). Those are verified with the project's
// parameters, which the export does not hold: the flags `--hash-key`, `--salt-separator`, `--rounds` and `--mem-cost`,
// as `firebase auth:import` names them (src/commands/auth-import.ts), give them — the key, a secret, better on stdin
// (`--hash-key-stdin`) or in PLAT_FIREBASE_HASH_KEY (import-from-options.ts).
import { UsageError } from '../../errors.js';
import { standardBase64 } from '../hashes.js';
import type { Row } from '../import-rows.js';
import { type Fields, hashRefused, isFields, Metadata, notAnObject, personRow, text } from './fields.js';
import type { FirebaseParameters, Provider } from './provider.js';

/** The providers a user signs in with (`password` when they have a hash), as one text: `google.com,password`. */
function providersOf(user: Fields, hashed: boolean): string | undefined {
  const infos = Array.isArray(user.providerUserInfo) ? user.providerUserInfo : [];
  const ids = infos.map((i) => (isFields(i) ? text(i.providerId) : undefined)).filter((i) => i !== undefined);
  if (hashed) ids.push('password');
  return ids.length > 0 ? ids.join(',') : undefined;
}

/** A user's custom claims (`customAttributes`, a JSON text), as an object, if they parse as one. */
function claimsOf(user: Fields): unknown {
  const json = text(user.customAttributes);
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** The flags that give a Firebase project's hash parameters (`firebase auth:import`'s names, and plat's for the key). */
export const FIREBASE_FLAGS =
  '--salt-separator, --rounds and --mem-cost, and the signer key with --hash-key-stdin, PLAT_FIREBASE_HASH_KEY or ' +
  '--hash-key';

/** One user of a Firebase export as a row; a password hash needs the project's parameters (a usage error without). */
function firebaseRow(line: number, value: unknown, parameters: FirebaseParameters): Row {
  if (!isFields(value)) return notAnObject(line);
  const email = text(value.email);
  const [hash, salt] = [text(value.passwordHash), text(value.salt) ?? ''];
  if (hash !== undefined && !parameters.config) {
    throw new UsageError(
      `line ${line}: this user has a password hash, which plat verifies with the Firebase project's hash ` +
        `parameters: give them with ${FIREBASE_FLAGS}, as the Firebase console shows them (Authentication, Users, ` +
        '⋮, Password hash parameters)',
    );
  }
  const [hash64, salt64] = [hash === undefined ? undefined : standardBase64(hash), standardBase64(salt)];
  if (hash !== undefined && (hash64 === undefined || salt64 === undefined)) {
    return hashRefused(line, email, 'passwordHash: the hash and the salt of a Firebase export are base64');
  }
  const metadata = new Metadata('firebase')
    .set('firebaseUid', text(value.localId))
    .set('firebaseProviders', providersOf(value, hash !== undefined))
    .set('phone', text(value.phoneNumber))
    .set('firebaseCreatedAt', text(value.createdAt))
    .set('firebaseLastSignedInAt', text(value.lastSignedInAt))
    .copy('claims', claimsOf(value));
  return personRow(line, {
    email,
    name: text(value.displayName),
    emailVerified: value.emailVerified === true,
    suspended: value.disabled === true,
    passwordHash:
      hash64 === undefined ? undefined : { algorithm: 'firebase-scrypt', hash: hash64, salt: salt64 as string },
    metadata,
  });
}

const READS =
  'plat reads the JSON that `firebase auth:export users.json --format=json` writes ({"users": [ … ]}); its CSV ' +
  'has no header';

/** Firebase's JSON export: `{"users": [ … ]}`. */
export const firebase: Provider = {
  name: 'firebase',
  title: 'Firebase',
  layouts: ['member'],
  member: 'users',
  reads: READS,
  records: (parameters) => ({ json: (line, value) => firebaseRow(line, value, parameters), csv: () => READS }),
};
