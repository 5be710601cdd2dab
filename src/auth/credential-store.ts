import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CredentialStore, StoredCredential } from './credential-types.js';
import { CREDENTIALS_FILE, FileCredentialStore } from './file-credential-store.js';
import {
  bounded,
  KeychainCredentialStore,
  KeychainUnavailable,
  type Keytar,
  loadKeytar,
} from './keychain-credential-store.js';

export type { CredentialStore, StoredCredential } from './credential-types.js';

/** How to open the credential store. */
export interface OpenCredentialStoreOptions {
  configDir: string;
  /** Receives the one fallback warning (no prefix, no trailing newline). */
  warn: (msg: string) => void;
  /** Bound on each keychain call, in milliseconds (default 1500). */
  timeoutMs?: number;
  /** Use the file, without trying the keychain and without a warning. */
  forceFile?: boolean;
  /** `PLAT_CREDENTIAL_STORE=file` forces the file store, as `forceFile` does. */
  env: NodeJS.ProcessEnv;
  /**
   * How keytar is loaded; tests inject a broken, hanging or fake one. The session-bus check (`noSessionBus`) is
   * about libsecret, which only the real keytar uses.
   */
  loadKeytar?: () => Promise<Keytar>;
}

const DEFAULT_TIMEOUT_MS = 1_500;

/** Files already warned about in this process (also when the note below cannot be written). */
const warned = new Set<string>();

/**
 * The note beside the credentials file that its warning was given: the fallback is announced once per config
 * directory, not at each command that stores a credential there (scripts that add profiles or bootstrap one
 * database after another stay quiet). It holds the warning, to read again; removing it, or a command that finds the
 * keychain working, makes the next fallback announce itself again.
 */
export const warnedNote = (file: string) => `${file}.warned`;

function warnOnce(warn: (msg: string) => void, file: string, reason: string): void {
  if (warned.has(file)) return;
  warned.add(file);
  if (existsSync(warnedNote(file))) return;
  const message = `no usable OS keychain (${reason}); credentials are stored in ${file}, readable only by you`;
  warn(message);
  try {
    writeFileSync(warnedNote(file), `${message}\n`, { mode: 0o600 });
  } catch {
    // Unwritten, the note only makes a later command warn again.
  }
}

/** The keychain works: a later fallback is news again. */
function forgetWarning(file: string): void {
  warned.delete(file);
  if (existsSync(warnedNote(file))) rmSync(warnedNote(file), { force: true });
}

/**
 * The file, used because no keychain works. It says so (once per config directory) when a credential first lands in
 * it — a bootstrap, `profiles add --api-key-stdin`, a first `plat login` — and keeps quiet when it reads one, or
 * replaces one (a token refresh): commands using a stored credential do not repeat it (`plat auth status` names the
 * store).
 */
class AnnouncedFileStore implements CredentialStore {
  readonly kind = 'file' as const;

  constructor(
    private readonly file: FileCredentialStore,
    private readonly announce: () => void,
  ) {}

  get location() {
    return this.file.location;
  }
  get(profile: string) {
    return this.file.get(profile);
  }
  async set(profile: string, credential: StoredCredential) {
    if (await this.file.put(profile, credential)) this.announce();
  }
  delete(profile: string) {
    return this.file.delete(profile);
  }
}

/**
 * The keychain while it answers; the file from the first call that fails or times out (a keychain can lock or
 * its daemon die after the probe). `kind` and `location` always tell the store in use. While the keychain is in use,
 * a profile's credential lives there only: a copy the file still holds — from a time without a keychain, or from a
 * command whose keychain failed while it ran — is settled when first read (`settle`), and storing or deleting one
 * removes the file's copy.
 */
class FallbackCredentialStore implements CredentialStore {
  private active: CredentialStore;

  constructor(
    private readonly keychain: KeychainCredentialStore,
    private readonly file: FileCredentialStore,
    private readonly fallBack: (reason: string) => CredentialStore,
  ) {
    this.active = keychain;
  }

  get kind() {
    return this.active.kind;
  }
  get location() {
    return this.active.location;
  }

  async get(profile: string) {
    const found = await this.run((s) => s.get(profile));
    if (this.active !== this.keychain) return found;
    return this.settle(profile, found);
  }
  async set(profile: string, credential: StoredCredential) {
    await this.run((s) => s.set(profile, credential));
    await this.dropFileCopy(profile);
  }
  async delete(profile: string) {
    await this.run((s) => s.delete(profile));
    // A credential left in the file by an earlier fallback must not outlive a logout.
    await this.dropFileCopy(profile);
  }

  /**
   * The credential to use when the file holds one for the profile beside the keychain's (`inKeychain`, read a moment
   * ago) or instead of it: the later of the two (`later`) goes into the keychain and the file's copy is removed. A
   * file copy beside a keychain copy is what a token refresh leaves when the keychain fails while it runs: the
   * rotated tokens went to the file and the keychain kept the spent ones, which, presented again, would make the
   * server end the session (refresh-token reuse). It is done under the file's lock, reading the keychain again
   * there: another plat may have settled it (and refreshed its tokens) meanwhile.
   */
  private async settle(
    profile: string,
    inKeychain: StoredCredential | undefined,
  ): Promise<StoredCredential | undefined> {
    if (!existsSync(this.file.location)) return inKeychain;
    // Read without the lock, so that a file holding nothing for this profile costs no lock.
    if ((await this.file.get(profile).catch(() => undefined)) === undefined) return inKeychain;
    let found: StoredCredential | undefined;
    try {
      await this.file.moveOut(profile, async (held) => {
        const current = await this.keychain.get(profile);
        found = current === undefined ? held : later(current, held);
        if (found === held) await this.keychain.set(profile, held);
      });
      return found ?? (await this.keychain.get(profile));
    } catch (err) {
      if (!(err instanceof KeychainUnavailable)) return inKeychain; // a damaged file holds nothing usable
      this.active = this.fallBack(err.message);
      const held = await this.active.get(profile);
      return inKeychain === undefined || held === undefined ? (held ?? inKeychain) : later(inKeychain, held);
    }
  }

  /** Removes the file's copy of a profile's credential while the keychain holds it (no lock taken for nothing). */
  private async dropFileCopy(profile: string): Promise<void> {
    if (this.active !== this.keychain || !existsSync(this.file.location)) return;
    if ((await this.file.get(profile).catch(() => undefined)) === undefined) return;
    await this.file.delete(profile).catch(() => {});
  }

  private async run<T>(op: (store: CredentialStore) => Promise<T>): Promise<T> {
    if (this.active === this.keychain) {
      try {
        return await op(this.keychain);
      } catch (err) {
        if (!(err instanceof KeychainUnavailable)) throw err;
        this.active = this.fallBack(err.message);
      }
    }
    return op(this.active);
  }
}

/**
 * Of a keychain copy and a file copy of one account's credential, the later one. Tokens tell by their expiry (a
 * refresh moves it on), and the keychain's win only when they expire later. Otherwise (API keys, no expiry) the
 * file's: while the keychain works every write goes there and removes the file's copy, so a file copy beside a
 * keychain copy was written after it, by a command whose keychain had failed — unless that removal itself failed,
 * which is rarer, and which the expiry of tokens still tells apart.
 */
function later(inKeychain: StoredCredential, inFile: StoredCredential): StoredCredential {
  const expiry = (c: StoredCredential) => (c.expiresAt === undefined ? Number.NaN : Date.parse(c.expiresAt));
  return expiry(inKeychain) > expiry(inFile) ? inKeychain : inFile;
}

/**
 * Why the Secret Service cannot answer on this machine, told without loading keytar — which loads libsecret and GLib
 * and tries to start a D-Bus session, ~12 ms at every command of a headless Linux box — or undefined when it may.
 * libsecret needs a session bus: named by DBUS_SESSION_BUS_ADDRESS, at $XDG_RUNTIME_DIR/bus, or started through X11
 * ($DISPLAY). Other systems keep their keychain elsewhere.
 */
export function noSessionBus(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux' || env.DBUS_SESSION_BUS_ADDRESS || env.DISPLAY) return undefined;
  if (env.XDG_RUNTIME_DIR && existsSync(join(env.XDG_RUNTIME_DIR, 'bus'))) return undefined;
  return 'no D-Bus session bus for the Secret Service: DBUS_SESSION_BUS_ADDRESS and DISPLAY are unset, and there is no $XDG_RUNTIME_DIR/bus';
}

/**
 * Opens the credential store: the OS keychain through keytar (loaded lazily, every call bounded by `timeoutMs`),
 * else `<configDir>/credentials.json` (mode 0600), with one warning naming the file when a credential first goes there
 * (once per config directory: `warnedNote`).
 */
export async function openCredentialStore(opts: OpenCredentialStoreOptions): Promise<CredentialStore> {
  const file = new FileCredentialStore(join(opts.configDir, CREDENTIALS_FILE));
  if (opts.forceFile || opts.env.PLAT_CREDENTIAL_STORE === 'file') return file;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const fallBack = (reason: string) => new AnnouncedFileStore(file, () => warnOnce(opts.warn, file.location, reason));
  const busless = opts.loadKeytar ? undefined : noSessionBus(opts.env);
  if (busless) return fallBack(busless);
  let keychain: KeychainCredentialStore;
  try {
    const keytar = await bounded(opts.loadKeytar ?? loadKeytar, timeoutMs, 'loading keytar');
    keychain = new KeychainCredentialStore(keytar, timeoutMs);
    await keychain.probe();
  } catch (err) {
    return fallBack(err instanceof Error ? err.message : String(err));
  }
  forgetWarning(file.location);
  return new FallbackCredentialStore(keychain, file, fallBack);
}
