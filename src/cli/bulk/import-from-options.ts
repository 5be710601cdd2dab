// The options of `plat users import` for another system's export (docs/migrate.md): `--from`, the Firebase project's
// hash parameters under the names `firebase auth:import` gives them (firebase/firebase-tools,
// src/commands/auth-import.ts: --hash-algo, --hash-key, --salt-separator, --rounds, --mem-cost; its
// src/accountImporter.ts requires the key, rounds 1–8 and memory cost 1–14 for SCRYPT, the separator defaulting to
// empty), and `--replace-passwords`.
import { type Command, Option } from 'commander';
import type { HashConfig } from '../../contract/users.js';
import { completes } from '../completion-values.js';
import { UsageError } from '../errors.js';
import { intBetween } from '../parse.js';
import { standardBase64 } from './hashes.js';
import { FIREBASE_FLAGS } from './providers/firebase.js';
import { PROVIDER_NAMES, type ProviderName } from './providers/provider.js';

/** What these options give an import. */
export interface FromOptions {
  /** The system whose export the file is; undefined: a file of plat's own. */
  from?: ProviderName;
  /** The Firebase project's scrypt parameters (`--from firebase`). */
  hashConfig?: HashConfig;
  /** With `--upsert`: set the file's hashes on users who have a password already. */
  replacePasswords: boolean;
}

/** Adds `--from --replace-passwords --hash-algo --hash-key --salt-separator --rounds --mem-cost`. */
export function addFromOptions(c: Command): void {
  const from = new Option(
    '--from <system>',
    `read another system's export: ${PROVIDER_NAMES.join(', ')} (its layout is told by its content; users come ` +
      'with their password hashes where it has them: see docs/migrate.md)',
  );
  c.addOption(completes(from, PROVIDER_NAMES));
  c.option(
    '--replace-passwords',
    "with --upsert, also set the file's password hashes on users who already have a password",
  );
  c.option('--hash-algo <algorithm>', 'with --from firebase: the hash algorithm, SCRYPT (the only one its export has)');
  c.option('--hash-key <key>', "with --from firebase: the project's base64_signer_key (a secret)");
  c.option('--salt-separator <separator>', "with --from firebase: the project's base64_salt_separator");
  c.option('--rounds <n>', "with --from firebase: the project's rounds, 1 to 8", intBetween(1, 8, { platform: true }));
  c.option(
    '--mem-cost <n>',
    "with --from firebase: the project's mem_cost, 1 to 14",
    intBetween(1, 14, { platform: true }),
  );
}

/** The Firebase flags given, by their names. */
function firebaseFlags(raw: Record<string, any>): string[] {
  const given: [string, unknown][] = [
    ['--hash-algo', raw.hashAlgo],
    ['--hash-key', raw.hashKey],
    ['--salt-separator', raw.saltSeparator],
    ['--rounds', raw.rounds],
    ['--mem-cost', raw.memCost],
  ];
  return given.filter(([, v]) => v !== undefined).map(([name]) => name);
}

/** The Firebase project's parameters from the flags, when any is given; usage errors (2) for what is missing or wrong. */
function hashConfigOf(raw: Record<string, any>): HashConfig | undefined {
  if (firebaseFlags(raw).length === 0) return undefined;
  if (raw.hashAlgo !== undefined && String(raw.hashAlgo).toUpperCase() !== 'SCRYPT') {
    throw new UsageError(
      '--hash-algo: plat verifies the hashes of Firebase\'s own scrypt, SCRYPT, the only ones "firebase auth:export" ' +
        'writes',
    );
  }
  const missing = [
    ['--hash-key', raw.hashKey],
    ['--rounds', raw.rounds],
    ['--mem-cost', raw.memCost],
  ].filter(([, v]) => v === undefined);
  if (missing.length > 0) {
    throw new UsageError(
      `the Firebase hash parameters need ${missing.map(([n]) => n).join(' and ')} too (${FIREBASE_FLAGS}, as the ` +
        'Firebase console shows them)',
    );
  }
  // Sent in standard base64, padded, whichever alphabet they were given in: the platform reads that one.
  const signerKey = standardBase64(raw.hashKey as string);
  const separator = standardBase64((raw.saltSeparator as string | undefined) ?? '');
  if (!signerKey) {
    throw new UsageError('--hash-key is not base64: give the base64_signer_key as the Firebase console shows it');
  }
  if (separator === undefined) {
    throw new UsageError('--salt-separator is not base64: give the base64_salt_separator as the console shows it');
  }
  return {
    algorithm: 'firebase-scrypt',
    signerKey,
    saltSeparator: separator,
    rounds: raw.rounds,
    memCost: raw.memCost,
  };
}

/** Reads them; what cannot go together is a usage error (2). */
export function parseFromOptions(raw: Record<string, any>): FromOptions {
  const from = raw.from as string | undefined;
  if (from !== undefined && !(PROVIDER_NAMES as readonly string[]).includes(from)) {
    throw new UsageError(`invalid --from "${from}": expected one of ${PROVIDER_NAMES.join(', ')}`);
  }
  if (from !== undefined && raw.format !== undefined) {
    throw new UsageError('--from tells the layout of the file by its content: leave out --format');
  }
  const flags = firebaseFlags(raw);
  if (flags.length > 0 && from !== 'firebase') {
    throw new UsageError(`${flags.join(', ')}: a Firebase project's hash parameters go with --from firebase`);
  }
  if (raw.replacePasswords === true && raw.upsert !== true) {
    throw new UsageError('--replace-passwords replaces the passwords of users who exist: it goes with --upsert');
  }
  return {
    from: from as ProviderName | undefined,
    hashConfig: hashConfigOf(raw),
    replacePasswords: raw.replacePasswords === true,
  };
}
