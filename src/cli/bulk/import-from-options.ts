// The options of `plat users import` for another system's export (docs/migrate.md): `--from`, the Firebase project's
// hash parameters under the names `firebase auth:import` gives them (firebase/firebase-tools,
// src/commands/auth-import.ts: --hash-algo, --hash-key, --salt-separator, --rounds, --mem-cost; its
// src/accountImporter.ts requires the key, rounds 1–8 and memory cost 1–14 for SCRYPT, the separator defaulting to
// empty), and `--replace-passwords`. The signer key is a secret: as every secret of plat's, it may come from stdin
// (`--hash-key-stdin`) or the environment (`PLAT_FIREBASE_HASH_KEY`), out of the process list that `--hash-key` is in.
import { type Command, Option } from 'commander';
import type { HashConfig } from '../../contract/users.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { InvalidValueError, UsageError } from '../errors.js';
import { intBetween } from '../parse.js';
import { standardBase64 } from './hashes.js';
import { FIREBASE_FLAGS } from './providers/firebase.js';
import { PROVIDER_NAMES, type ProviderName } from './providers/provider.js';

/** The environment variable that may hold the Firebase project's signer key. */
export const HASH_KEY_ENV = 'PLAT_FIREBASE_HASH_KEY';

/** The Firebase project's parameters as the command line gives them: the signer key may be on stdin or in the environment. */
export interface FirebaseFlags {
  /** `--hash-key`'s value, in standard base64. */
  hashKey?: string;
  /** `--hash-key-stdin`: the key is read from stdin. */
  hashKeyStdin: boolean;
  /** `--salt-separator`, in standard base64 (empty when not given). */
  saltSeparator: string;
  rounds?: number;
  memCost?: number;
}

/** What these options give an import. */
export interface FromOptions {
  /** The system whose export the file is; undefined: a file of plat's own. */
  from?: ProviderName;
  /** The Firebase project's parameters (`--from firebase`), when a flag gives one: `firebaseHashConfig` completes them. */
  firebase?: FirebaseFlags;
  /** With `--upsert`: set the file's hashes on users who have a password already. */
  replacePasswords: boolean;
}

/** Adds `--from --replace-passwords --hash-algo --hash-key --hash-key-stdin --salt-separator --rounds --mem-cost`. */
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
  c.option(
    '--hash-key <key>',
    "with --from firebase: the project's base64_signer_key (a secret: anyone who lists the processes sees it while " +
      `plat runs; --hash-key-stdin or ${HASH_KEY_ENV} keep it out of the process list)`,
  );
  c.option(
    '--hash-key-stdin',
    "with --from firebase: read the project's base64_signer_key from stdin, out of the process list (not with FILE " +
      `-; or set ${HASH_KEY_ENV})`,
  );
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
    ['--hash-key-stdin', raw.hashKeyStdin],
    ['--salt-separator', raw.saltSeparator],
    ['--rounds', raw.rounds],
    ['--mem-cost', raw.memCost],
  ];
  return given.filter(([, v]) => v !== undefined).map(([name]) => name);
}

/** A signer key, in standard base64 (as the platform reads it); `source` names where it came from for the refusal. */
function signerKeyOf(key: string, source: string): string {
  const standard = standardBase64(key);
  if (!standard) {
    throw new UsageError(`${source} is not base64: give the base64_signer_key as the Firebase console shows it`);
  }
  return standard;
}

/**
 * The Firebase project's parameters the flags give, when any is given; usage errors (2) for what is wrong or cannot
 * go together. What is missing is told by `firebaseHashConfig`, once the environment is known.
 */
function firebaseFlagsOf(raw: Record<string, any>, file: string): FirebaseFlags | undefined {
  if (firebaseFlags(raw).length === 0) return undefined;
  if (raw.hashAlgo !== undefined && String(raw.hashAlgo).toUpperCase() !== 'SCRYPT') {
    throw new UsageError(
      '--hash-algo: plat verifies the hashes of Firebase\'s own scrypt, SCRYPT, the only ones "firebase auth:export" ' +
        'writes',
    );
  }
  const hashKeyStdin = raw.hashKeyStdin === true;
  if (hashKeyStdin && raw.hashKey !== undefined) {
    throw new UsageError('--hash-key and --hash-key-stdin both give the signer key: give one');
  }
  if (hashKeyStdin && file === '-') {
    throw new UsageError(
      `--hash-key-stdin reads the signer key from stdin, which FILE - reads the users from: name the file, or put the ` +
        `key in ${HASH_KEY_ENV}`,
    );
  }
  // Sent in standard base64, padded, whichever alphabet they were given in: the platform reads that one.
  const separator = standardBase64((raw.saltSeparator as string | undefined) ?? '');
  if (separator === undefined) {
    throw new UsageError('--salt-separator is not base64: give the base64_salt_separator as the console shows it');
  }
  return {
    hashKey: raw.hashKey === undefined ? undefined : signerKeyOf(raw.hashKey as string, '--hash-key'),
    hashKeyStdin,
    saltSeparator: separator,
    rounds: raw.rounds,
    memCost: raw.memCost,
  };
}

/**
 * The Firebase project's parameters for the run, undefined when no flag gives one: the signer key from `--hash-key`,
 * else stdin (`--hash-key-stdin`), else `PLAT_FIREBASE_HASH_KEY`. What is missing is a usage error (2), told before
 * stdin is read; an empty stdin is exit 7, as for every `--*-stdin`.
 */
export async function firebaseHashConfig(
  flags: FirebaseFlags | undefined,
  ctx: Pick<Context, 'deps' | 'globals' | 'stdinText'>,
): Promise<HashConfig | undefined> {
  if (!flags) return undefined;
  const fromEnv = ctx.deps.env[HASH_KEY_ENV] || undefined;
  const given: [string, boolean][] = [
    ['the signer key', flags.hashKey !== undefined || flags.hashKeyStdin || fromEnv !== undefined],
    ['--rounds', flags.rounds !== undefined],
    ['--mem-cost', flags.memCost !== undefined],
  ];
  const missing = given.filter(([, g]) => !g).map(([name]) => name);
  if (missing.length > 0) {
    throw new UsageError(
      `the Firebase hash parameters need ${missing.join(' and ')} too (${FIREBASE_FLAGS}, as the ` +
        'Firebase console shows them)',
    );
  }
  let signerKey = flags.hashKey;
  if (signerKey === undefined && flags.hashKeyStdin) {
    if (ctx.globals().apiKeyStdin) throw new UsageError('--hash-key-stdin and --api-key-stdin both need stdin');
    const key = await ctx.stdinText();
    if (!key) throw new InvalidValueError('--hash-key-stdin: stdin was empty');
    signerKey = signerKeyOf(key, '--hash-key-stdin');
  }
  signerKey ??= signerKeyOf(fromEnv as string, HASH_KEY_ENV);
  return {
    algorithm: 'firebase-scrypt',
    signerKey,
    saltSeparator: flags.saltSeparator,
    rounds: flags.rounds as number,
    memCost: flags.memCost as number,
  };
}

/** Reads them (`file`: the input, `-` for stdin); what cannot go together is a usage error (2). */
export function parseFromOptions(raw: Record<string, any>, file: string): FromOptions {
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
    firebase: firebaseFlagsOf(raw, file),
    replacePasswords: raw.replacePasswords === true,
  };
}
