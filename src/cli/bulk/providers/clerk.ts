// Clerk (docs/migrate.md, "Clerk"). Files, told apart by their content:
// - the CSV the Clerk Dashboard exports (Settings, User exports: https://clerk.com/docs/guides/development/migrating/export-from-clerk,
//   "Only the Clerk Dashboard export includes password digests"), whose columns are id, first_name, last_name, username,
//   primary_email_address, primary_phone_number, verified_email_addresses, unverified_email_addresses,
//   verified_phone_numbers, unverified_phone_numbers, totp_secret, password_digest, password_hasher (as WorkOS's
//   importer of it lists them, workos/migrate-clerk-users README and example-input.csv); an older export had
//   email_addresses, phone_numbers and the three *_metadata columns as JSON (clerk/migration-script samples/clerk.csv);
// - a JSON array of such users: support's export, with `email_addresses` between `|` (workos/migrate-clerk-users
//   src/clerk-exported-user.ts and example-input.json), or an array (clerk/migration-script samples/clerk.json), and the
//   metadata objects; or the Clerk CLI's (`clerk migrate export clerk`: userId, email, firstName, lastName, username,
//   unverifiedEmailAddresses, phone, banned, publicMetadata…, clerk/migration-script src/export/clerk.ts), which has no
//   digests.
// `password_hasher` names the form of `password_digest` (Clerk's Backend API, CreateUser, password_hasher): bcrypt,
// argon2i and argon2id are strings plat takes; pbkdf2_sha256_django is Django's; pbkdf2_sha256
// (`pbkdf2_sha256$ITERATIONS$SALT$HASH`, both base64) becomes PHC; scrypt_firebase
// (`HASH$SALT$SIGNER_KEY$SALT_SEPARATOR$ROUNDS$MEMORY_COST`) is Firebase's scrypt with its project's parameters. The
// others (md5, sha256, pbkdf2_sha1, phpass, bcrypt_sha256_django…) are refused. `totp_secret` and backup codes: never read.
import type { HashConfig, ImportedHash } from '../../../contract/users.js';
import { base64Bytes, pbkdf2Phc, standardBase64 } from '../hashes.js';
import type { Row } from '../import-rows.js';
import {
  csvObjects,
  type Fields,
  hashRefused,
  isFields,
  Metadata,
  notAnObject,
  personName,
  personRow,
  text,
  WITHOUT_HASH,
  yes,
} from './fields.js';
import type { FirebaseParameters, Provider } from './provider.js';

/** A list of addresses: a JSON array, or text between `|` (commas and semicolons taken too). */
function listOf(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[|,;]/) : [];
  return items.map(text).filter((e) => e !== undefined);
}

/** A metadata object: an object, or (in CSV) its JSON text. */
function objectOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** The hashers plat verifies, as messages list them. */
const VERIFIED = 'bcrypt, argon2i, argon2id, pbkdf2_sha256, pbkdf2_sha256_django and scrypt_firebase';

type ClerkHash = { hash?: ImportedHash } | { problem: string };
const problem = (message: string): ClerkHash => ({ problem: `password_digest: ${message}` });

/** A `scrypt_firebase` digest: the user's hash and salt, and the Firebase project's parameters (agreed for the run). */
function firebaseDigest(digest: string, line: number, parameters: FirebaseParameters): ClerkHash {
  const parts = digest.split('$');
  const [rounds, memCost] = [parts[4], parts[5]];
  // In standard base64, padded, whichever alphabet the digest has: the platform reads that one.
  const [hash, salt, signerKey, saltSeparator] = parts.slice(0, 4).map(standardBase64);
  const config: HashConfig = {
    algorithm: 'firebase-scrypt',
    signerKey: signerKey ?? '',
    saltSeparator: saltSeparator ?? '',
    rounds: Number(rounds),
    memCost: Number(memCost),
  };
  const base64 = [hash, salt, signerKey, saltSeparator].every((p) => p !== undefined);
  const bounded = Number.isInteger(config.rounds) && config.rounds >= 1 && config.rounds <= 8;
  if (
    parts.length !== 6 ||
    !base64 ||
    !hash ||
    !signerKey ||
    !bounded ||
    !(config.memCost >= 1 && config.memCost <= 14)
  ) {
    return problem('a scrypt_firebase digest is HASH$SALT$SIGNER_KEY$SALT_SEPARATOR$ROUNDS$MEMORY_COST');
  }
  const differs = parameters.agree(config, line);
  return differs ? problem(differs) : { hash: { algorithm: 'firebase-scrypt', hash, salt: salt ?? '' } };
}

/** A Clerk digest as plat takes it (none when there is none), or why it cannot be imported. */
function clerkHash(user: Fields, line: number, parameters: FirebaseParameters): ClerkHash {
  const digest = text(user.password_digest);
  if (digest === undefined) return {};
  const hasher =
    text(user.password_hasher) ??
    (/^\$2[aby]\$/.test(digest) ? 'bcrypt' : /^\$argon2id?\$/.exec(digest)?.[0].slice(1, -1));
  switch (hasher) {
    case 'bcrypt':
      return /^\$2[aby]\$/.test(digest) ? { hash: digest } : problem('a bcrypt digest starts with $2a$, $2b$ or $2y$');
    case 'argon2i':
    case 'argon2id':
      return digest.startsWith(`$${hasher}$`)
        ? { hash: digest }
        : problem(`an ${hasher} digest starts with $${hasher}$`);
    case 'pbkdf2_sha256_django':
      return digest.startsWith('pbkdf2_sha256$')
        ? { hash: digest }
        : problem('Django digests start with pbkdf2_sha256$');
    case 'pbkdf2_sha256': {
      const [id, iterations, salt, hash] = digest.split('$');
      const [saltBytes, hashBytes, i] = [base64Bytes(salt ?? ''), base64Bytes(hash ?? ''), Number(iterations)];
      if (id !== 'pbkdf2_sha256' || !saltBytes || !hashBytes || !hash || !Number.isInteger(i) || i < 1) {
        return problem('a pbkdf2_sha256 digest is pbkdf2_sha256$ITERATIONS$SALT$HASH, salt and hash in base64');
      }
      return { hash: pbkdf2Phc('sha256', i, saltBytes, hashBytes) };
    }
    case 'scrypt_firebase':
      return firebaseDigest(digest, line, parameters);
    case undefined:
      return problem('password_hasher is missing, and the digest is neither bcrypt nor argon2');
    default:
      return problem(`plat does not verify ${hasher} digests (it verifies ${VERIFIED}): ${WITHOUT_HASH}`);
  }
}

/** One Clerk user, from the Dashboard's CSV or a JSON export, as a row. */
function clerkRow(line: number, user: Fields, parameters: FirebaseParameters): Row {
  const cli = user.userId !== undefined; // the Clerk CLI's export names its fields in camelCase
  const addresses = listOf(user.email_addresses);
  const email =
    text(user.primary_email_address) ?? text(user.email) ?? listOf(user.verified_email_addresses)[0] ?? addresses[0];
  const verified =
    user.verified_email_addresses !== undefined
      ? listOf(user.verified_email_addresses).some((e) => e.toLowerCase() === email?.toLowerCase())
      : cli && !listOf(user.unverifiedEmailAddresses).some((e) => e.toLowerCase() === email?.toLowerCase());
  const hash = clerkHash(user, line, parameters);
  if ('problem' in hash) return hashRefused(line, email, hash.problem);
  const metadata = new Metadata('clerk')
    .set('clerkUserId', text(user.id) ?? text(user.userId))
    .set('clerkUsername', text(user.username))
    .set('phone', text(user.primary_phone_number) ?? text(user.phone) ?? listOf(user.phone_numbers)[0])
    .copy('public', objectOf(user.public_metadata ?? user.publicMetadata))
    .copy('private', objectOf(user.private_metadata ?? user.privateMetadata))
    .copy('unsafe', objectOf(user.unsafe_metadata ?? user.unsafeMetadata));
  return personRow(line, {
    email,
    name: personName(undefined, user.first_name ?? user.firstName, user.last_name ?? user.lastName, email),
    emailVerified: verified,
    suspended: yes(user.banned) || yes(user.locked),
    passwordHash: hash.hash,
    metadata,
  });
}

const EMAIL_COLUMNS = ['primary_email_address', 'email_addresses', 'verified_email_addresses'];

/** Clerk's files: the Dashboard's CSV, or a JSON array of exported users. */
export const clerk: Provider = {
  name: 'clerk',
  title: 'Clerk',
  layouts: ['csv', 'array'],
  reads: "plat reads the CSV the Clerk Dashboard exports (Settings, User exports), or a JSON array of Clerk's users",
  records: (parameters) => ({
    json: (line, value) => (isFields(value) ? clerkRow(line, value, parameters) : notAnObject(line)),
    csv: (header) => csvObjects(header, EMAIL_COLUMNS, (line, fields) => clerkRow(line, fields, parameters)),
  }),
};
