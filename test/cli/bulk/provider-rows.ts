import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Halt, Row } from '../../../src/cli/bulk/import-rows.js';
import { openSource } from '../../../src/cli/bulk/import-source.js';
import { PROVIDERS } from '../../../src/cli/bulk/providers/index.js';
import { FirebaseParameters, type ProviderName } from '../../../src/cli/bulk/providers/provider.js';
import type { HashConfig } from '../../../src/contract/users.js';

/** A sample export of test/fixtures/providers/ (see its README). */
export const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/providers/${name}`, import.meta.url));

/** The Firebase project parameters of firebase/scrypt's README (the samples' hashes were made with them). */
export const SAMPLE_FIREBASE: HashConfig = {
  algorithm: 'firebase-scrypt',
  signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
  saltSeparator: 'Bw==',
  rounds: 8,
  memCost: 14,
};

/** The sample's parameters but the signer key (a secret, given apart), as `firebase auth:import`'s flags name them. */
export const SAMPLE_FIREBASE_FLAGS = [
  '--salt-separator',
  SAMPLE_FIREBASE.saltSeparator,
  '--rounds',
  String(SAMPLE_FIREBASE.rounds),
  '--mem-cost',
  String(SAMPLE_FIREBASE.memCost),
];

/**
 * Every row `--from provider` makes of a sample (or of `text`, in a file named `file`), its halt, and the run's
 * Firebase parameters.
 */
export async function rowsOf(
  provider: ProviderName,
  file: string,
  o: { config?: HashConfig; text?: string } = {},
): Promise<{ rows: Row[]; halt: Halt['at']; firebase: FirebaseParameters }> {
  const firebase = new FirebaseParameters(o.config);
  const dir = o.text === undefined ? undefined : mkdtempSync(join(tmpdir(), 'plat-provider-'));
  try {
    const path = dir ? join(dir, file) : fixture(file);
    if (dir) writeFileSync(path, o.text as string);
    const stdin = () => {
      throw new Error('no stdin here');
    };
    const source = await openSource(path, file, { provider: PROVIDERS[provider], firebase }, stdin);
    const rows: Row[] = [];
    for await (const row of source.rows) rows.push(row);
    return { rows, halt: source.halt.at, firebase };
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** The items of rows by e-mail, and the failures as `line email: message`. */
export function byEmail(rows: Row[]): { items: Record<string, Record<string, unknown>>; failures: string[] } {
  const items: Record<string, Record<string, unknown>> = {};
  const failures: string[] = [];
  for (const r of rows) {
    if ('item' in r) items[r.item.email] = JSON.parse(JSON.stringify(r.item));
    else failures.push(`${r.line} ${r.email ?? '-'}: ${r.error.message}`);
  }
  return { items, failures };
}

/** The secrets a sample holds (see the README): none may be in anything plat sends, shows or writes. */
export function secretsOf(name: string): string[] {
  const text = readFileSync(fixture(name), 'utf8');
  const marked = text.match(/[A-Za-z0-9_.-]*NEVER_?COPIED[A-Za-z0-9_]*/g) ?? [];
  // Auth0's sample TOTP secret (its documentation's), in mfa_factors.
  return [...new Set([...marked, ...(text.includes('2PRXZWZAYYDAWCD') ? ['2PRXZWZAYYDAWCD'] : [])])];
}

/**
 * A hash string of a form plat takes (bcrypt `$2a$`/`$2b$`/`$2y$`, `$argon2id$`/`$argon2i$`, `$scrypt$`,
 * `$pbkdf2-…$`, Django's `pbkdf2_sha256$`, sha512-crypt `$6$`) or refuses but an export may hold (phpass `$P$`), whole:
 * its parameters (`m=65536,t=2,p=1`) hold commas, its end does not (a CSV cell after it).
 */
const PREFIXED =
  /(?:\$(?:2[aby]|argon2id|argon2i|scrypt|pbkdf2-[a-z0-9]+|6|P)|pbkdf2_sha256)(?:\$(?:[a-z]+=\d+(?:,[a-z]+=\d+)*|[A-Za-z0-9+/=._-]*))+/g;

/**
 * A salt or a hash of 8 characters or more: not the name of the form (`argon2id`), nor a parameter (`rounds=5000`);
 * shorter pieces are left alone.
 */
const isSecretPart = (part: string) =>
  part.length >= 8 &&
  /^[A-Za-z0-9+/=._-]+$/.test(part) &&
  !/^(?:argon2id|argon2i|scrypt|pbkdf2[-_][a-z0-9]+)$/.test(part) &&
  !/^[a-z]+=\d/.test(part);

/**
 * Every text of the hashes in `text` that nothing plat prints or writes may hold: the hash strings whole; each salt
 * and hash in them (of `$`-separated values: the forms above, Clerk's scrypt_firebase digests); the salts and hashes
 * given as JSON (Firebase's `"passwordHash"` and `"salt"`, Auth0's `"hash": {"value": "…"}`); and long base64 or hex
 * (Firebase's hashes, other digests).
 */
export function hashesIn(text: string): string[] {
  const whole = text.match(PREFIXED) ?? [];
  const parts = text
    .split(/[\s",{}[\]]+/)
    .filter((token) => token.includes('$'))
    .flatMap((token) => token.split('$'))
    .filter(isSecretPart);
  const given = /"(?:salt|hash|passwordHash)"\s*:\s*(?:\{\s*"value"\s*:\s*)?"([^"]{8,})"/g;
  const salts = [...text.matchAll(given)].map((m) => m[1] as string);
  const long = text.match(/[A-Za-z0-9+/]{32,}={0,2}/g) ?? [];
  return [...new Set([...whole, ...parts, ...salts, ...long])];
}

/** Every text of a sample's hashes (`hashesIn`). */
export const hashesOf = (name: string): string[] => hashesIn(readFileSync(fixture(name), 'utf8'));
