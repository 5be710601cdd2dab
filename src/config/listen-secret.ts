import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { ConfigError } from './errors.js';

// The signing secrets of `plat events listen` (docs/cli.md, "Events"): one per profile (or per instance a profile does
// not name), kept so that a receiver configured with it once keeps verifying across runs, as `stripe listen` does.

/** The file, in the configuration directory, that holds them: `{ "secrets": { "<key>": "whsec_…" } }`, mode 0600. */
export const LISTEN_SECRETS_FILE = 'listen-secrets.json';

/** A fresh secret as the platform makes webhooks' own: `whsec_` and 24 random bytes in base64. */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function readSecrets(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`cannot read ${path}: ${(err as Error).message}`, path, { cause: err });
  }
  try {
    const secrets = (JSON.parse(text) as { secrets?: unknown }).secrets;
    if (secrets && typeof secrets === 'object' && !Array.isArray(secrets)) {
      return Object.fromEntries(
        Object.entries(secrets).filter(([, v]) => typeof v === 'string' && v.startsWith('whsec_')),
      );
    }
  } catch {}
  throw new ConfigError(`${path} is not a valid secrets file; remove it (listen makes a new secret)`, path);
}

/**
 * The secret `plat events listen` signs with for `key` (a profile's credential account, or an instance's URL): the one
 * kept in `dir`, else a new one, kept there (atomically, mode 0600) before it is returned.
 */
export function listenSecret(dir: string, key: string): { secret: string; path: string } {
  const path = join(dir, LISTEN_SECRETS_FILE);
  const secrets = readSecrets(path);
  const kept = secrets[key];
  if (kept) return { secret: kept, path };
  const secret = newSecret();
  writeFileAtomic(path, `${JSON.stringify({ secrets: { ...secrets, [key]: secret } }, null, 2)}\n`);
  return { secret, path };
}
