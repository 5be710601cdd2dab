import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../config/atomic-write.js';
import { ConfigError } from '../config/errors.js';
import type { CredentialStore, StoredCredential } from './credential-types.js';
import { withFileLock } from './refresh-lock.js';

/** The credentials file's name inside the config directory. */
export const CREDENTIALS_FILE = 'credentials.json';

/**
 * Credentials in a JSON file (mode 0600, atomic writes), for machines without a usable keychain.
 * Profiles are kept in a Map so that a profile called `__proto__` stays data.
 * Every change reads and rewrites the whole file, so changes hold one store-wide lock (`<file>.lock`) between
 * processes: two processes saving different accounts at once (`prod` and `prod:sandbox` refreshing) both keep theirs.
 */
export class FileCredentialStore implements CredentialStore {
  readonly kind = 'file' as const;

  constructor(readonly location: string) {}

  async get(profile: string): Promise<StoredCredential | undefined> {
    return (await this.read()).get(profile);
  }

  async set(profile: string, credential: StoredCredential): Promise<void> {
    await this.put(profile, credential);
  }

  /** Stores a profile's credential; true when the file did not hold one for that profile before. */
  async put(profile: string, credential: StoredCredential): Promise<boolean> {
    let added = false;
    await this.locked(async () => {
      const all = await this.read();
      added = !all.has(profile);
      all.set(profile, credential);
      await this.write(all);
    });
    return added;
  }

  async delete(profile: string): Promise<void> {
    await this.locked(async () => {
      const all = await this.read();
      if (all.delete(profile)) await this.write(all);
    });
  }

  /**
   * Hands a profile's credential to `into` (another store) under the store-wide lock, and removes it from the file
   * once `into` has succeeded (if `into` throws, the file keeps it). Nothing happens when the file does not hold it.
   */
  async moveOut(profile: string, into: (credential: StoredCredential) => Promise<void>): Promise<void> {
    await this.locked(async () => {
      const all = await this.read();
      const credential = all.get(profile);
      if (credential === undefined) return;
      await into(credential);
      all.delete(profile);
      await this.write(all);
    });
  }

  /** Runs a read-modify-write under the store-wide lock. Readers need none: the file is replaced atomically. */
  private locked(work: () => Promise<void>): Promise<void> {
    return withFileLock(`${this.location}.lock`, work);
  }

  private async read(): Promise<Map<string, StoredCredential>> {
    let text: string;
    try {
      text = readFileSync(this.location, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw new ConfigError(`cannot read ${this.location}: ${(err as NodeJS.ErrnoException).code}`, this.location);
    }
    // The messages below never quote the content: it holds secrets.
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ConfigError(`${this.location} is not valid JSON; remove it and sign in again`, this.location);
    }
    const profiles = (json as { profiles?: unknown } | null)?.profiles;
    if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) {
      throw new ConfigError(`${this.location} is not a credentials file; remove it and sign in again`, this.location);
    }
    return new Map(Object.entries(profiles as Record<string, StoredCredential>));
  }

  private async write(all: Map<string, StoredCredential>): Promise<void> {
    const content = JSON.stringify({ version: 1, profiles: Object.fromEntries(all) }, null, 2);
    writeFileAtomic(this.location, `${content}\n`);
  }
}
