import { createRequire } from 'node:module';
import type { CredentialStore, StoredCredential } from './credential-types.js';

/** The keychain service every credential of plat is filed under; the account is the profile name. */
export const KEYCHAIN_SERVICE = 'plat';

/** The part of keytar's API used here. */
export interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/** The keychain did not answer (no Secret Service, locked, a prompt nobody will see); the file takes over. */
export class KeychainUnavailable extends Error {
  constructor(reason: string, opts: { cause?: unknown } = {}) {
    super(reason, opts);
    this.name = 'KeychainUnavailable';
  }
}

/**
 * Bounds a keychain call: a D-Bus call or an OS prompt can hang far longer than a CLI should wait.
 * The timer is unref'd so that it never holds the process open by itself.
 */
export function bounded<T>(work: () => Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new KeychainUnavailable(`${what} timed out after ${ms} ms`)), ms);
    timer.unref();
    const fail = (err: unknown) => {
      clearTimeout(timer);
      const reason = err instanceof Error ? err.message : String(err);
      reject(new KeychainUnavailable(`${what} failed: ${reason}`, { cause: err }));
    };
    try {
      work().then((value) => {
        clearTimeout(timer);
        resolve(value);
      }, fail);
    } catch (err) {
      fail(err);
    }
  });
}

/**
 * Loads keytar lazily: it is an optional, native (CommonJS) dependency that may be missing or fail to load, so it is
 * required at run time from beside this module — never bundled, and never needed to type-check or build.
 */
export async function loadKeytar(): Promise<Keytar> {
  const mod = createRequire(import.meta.url)('keytar') as Keytar & { default?: Keytar };
  const keytar = mod.default ?? mod;
  if (typeof keytar.getPassword !== 'function') throw new Error('keytar has no getPassword');
  return keytar;
}

/** Credentials in the OS keychain through keytar: service `plat`, account = profile, value = JSON. */
export class KeychainCredentialStore implements CredentialStore {
  readonly kind = 'keychain' as const;
  readonly location = `OS keychain (service ${KEYCHAIN_SERVICE})`;

  constructor(
    private readonly keytar: Keytar,
    private readonly timeoutMs: number,
  ) {}

  /** A read of an account nobody uses: proves the keychain answers before the store is chosen. */
  async probe(): Promise<void> {
    await bounded(() => this.keytar.getPassword(KEYCHAIN_SERVICE, '.plat-probe'), this.timeoutMs, 'keychain probe');
  }

  async get(profile: string): Promise<StoredCredential | undefined> {
    const raw = await bounded(
      () => this.keytar.getPassword(KEYCHAIN_SERVICE, profile),
      this.timeoutMs,
      'keychain read',
    );
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw) as StoredCredential;
    } catch {
      // Not ours (or damaged): treated as absent, so that signing in again overwrites it.
      return undefined;
    }
  }

  async set(profile: string, credential: StoredCredential): Promise<void> {
    const value = JSON.stringify(credential);
    await bounded(() => this.keytar.setPassword(KEYCHAIN_SERVICE, profile, value), this.timeoutMs, 'keychain write');
  }

  async delete(profile: string): Promise<void> {
    await bounded(() => this.keytar.deletePassword(KEYCHAIN_SERVICE, profile), this.timeoutMs, 'keychain delete');
  }
}
