import { closeSync, fchmodSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newWebhookSecret } from '../contract/webhook-signature.js';
import { removeQuietly } from './atomic-write.js';
import { ConfigError } from './errors.js';
import { makeDirectory } from './make-directory.js';

// The signing secrets of `plat events listen` (docs/cli.md, "Events"): one per profile (or per instance a profile does
// not name), kept so that a receiver configured with it once keeps verifying across runs, as `stripe listen` does.

/** The file, in the configuration directory, that holds them: `{ "secrets": { "<key>": "whsec_…" } }`, mode 0600. */
export const LISTEN_SECRETS_FILE = 'listen-secrets.json';

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

/** How long a run waits for another's write of the file before it gives up. */
const WAIT_MS = 15_000;
/** When a write in progress counts as abandoned (its process died between claiming and renaming). */
const STALE_MS = 5_000;

/**
 * Claims `next`, the one write of the secrets file in progress, by creating it (O_EXCL, 0600): its descriptor when
 * this run holds it now, undefined when another run's write is in progress.
 */
function claim(next: string): number | undefined {
  try {
    return openSync(next, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw new ConfigError(`cannot write ${next}: ${(err as Error).message}`, next, { cause: err });
  }
}

/** Whether a claim left by another run is older than `STALE_MS` (and so abandoned), or already gone. */
function abandoned(next: string): boolean {
  try {
    return Date.now() - statSync(next).mtimeMs > STALE_MS;
  } catch {
    return true;
  }
}

/**
 * The secret `plat events listen` signs with for `key` (a profile's credential account, or an instance's URL): the one
 * kept in `dir`, else a new one, kept there before it is returned. Of several runs that start together, the first to
 * write wins and the others use its secret: a write is claimed by creating `listen-secrets.json.new` exclusively,
 * reads the file again under that claim, and is renamed into place (atomically, mode 0600), which ends the claim.
 */
export async function listenSecret(
  dir: string,
  key: string,
  sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<{ secret: string; path: string }> {
  const path = join(dir, LISTEN_SECRETS_FILE);
  const next = `${path}.new`;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const kept = readSecrets(path)[key];
    if (kept) return { secret: kept, path };
    makeDirectory(dir, 'configuration directory');
    const fd = claim(next);
    if (fd === undefined) {
      if (abandoned(next)) removeQuietly(next);
      else if (Date.now() > deadline) {
        const why = `another plat has been writing ${next} for ${WAIT_MS / 1000} s: remove it if none is running`;
        throw new ConfigError(why, next);
      } else await sleep(10 + Math.random() * 40);
      continue;
    }
    // Read again under the claim: a run that wrote between the first read and the claim has won.
    let written: string | undefined;
    try {
      const secrets = readSecrets(path);
      if (!secrets[key]) {
        written = newWebhookSecret();
        writeFileSync(fd, `${JSON.stringify({ secrets: { ...secrets, [key]: written } }, null, 2)}\n`, 'utf8');
        // The mode given to open() is filtered by the umask; set it exactly.
        fchmodSync(fd, 0o600);
        fsyncSync(fd);
      }
    } catch (err) {
      removeQuietly(next);
      throw err;
    } finally {
      closeSync(fd);
    }
    if (!written) {
      removeQuietly(next);
      continue;
    }
    try {
      renameSync(next, path);
      return { secret: written, path };
    } catch (err) {
      // Taken over as abandoned (this run was stopped for 5 s): the next claim reads what the other run wrote.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      removeQuietly(next);
      throw new ConfigError(`cannot write ${path}: ${(err as Error).message}`, path, { cause: err });
    }
  }
}
