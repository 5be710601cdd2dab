import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Seals the secrets the platform must be able to read back (an SSO client secret, token-signing private keys) before
 * they reach the database, with a key kept apart from it: AES-256-GCM, each value bound to the row it belongs to (the
 * `context`, as additional data), so a sealed value copied into another row does not open. A copy of the database
 * alone — a backup, a dump, a stolen file — holds none of them in clear.
 *
 * Sealed form: `enc:v1:<key id>:<iv>:<ciphertext and tag>`, base64url. The database records the id of the key its
 * values are sealed with (`meta.secret_key_id`, see `KeyRecord`): another key is refused — never used to seal more,
 * which would leave values no single key opens — and a missing key file is never replaced by a new one.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** The plaintext of a sealed value; a value from before sealing existed (no `enc:` prefix) is returned as it is. */
  open(stored: string, context: string): string;
  /** Throws, saying what to do, when the database holds values sealed with another key than the one at hand. */
  check(): void;
}

/** Where the key comes from: `PLAT_SECRET_KEY`, a file beside the database, or (an in-memory database) nowhere. */
export type SecretKeySource = { kind: 'env'; value: string } | { kind: 'file'; path: string } | { kind: 'memory' };

/** Where the database records the id of the key its secrets are sealed with. */
export interface KeyRecord {
  read(): string | undefined;
  write(id: string): void;
}

const PREFIX = 'enc:v1:';
const KEY_BYTES = 32;

/**
 * The secrets of the database cannot be sealed or opened with the key at hand: a malformed `PLAT_SECRET_KEY`, another
 * key than the one they were sealed with, a missing key file, a damaged value. The message says what to do; it never
 * carries a secret. An operator's matter, not a bug: logged without a stack.
 */
export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/** The row each sealed column's values are bound to (their additional data), for the stores. */
export const SEALED = {
  ssoClientSecret: (orgId: string) => `sso_configs.client_secret:${orgId}`,
  signingKey: (kid: string) => `signing_keys.private_jwk:${kid}`,
  ssoRequest: (id: string) => `sso_requests.sealed:${id}`,
  /** A mail's text and links: an invitation's (or any one-time) link is a secret until it is used. */
  mailText: (id: string) => `outbox.text:${id}`,
  mailLinks: (id: string) => `outbox.links:${id}`,
  /** An imported Firebase scrypt hash: it carries the project's signer key, which must not sit in the database clear. */
  passwordHash: (userId: string) => `accounts.password_hash:${userId}`,
  /** A webhook endpoint's signing secret (current or previous): every delivery is signed with it. */
  webhookSecret: (webhookId: string) => `webhooks.secret:${webhookId}`,
  /** A TOTP factor's shared secret: every code is computed from it. */
  totpSecret: (factorId: string) => `mfa_factors.secret:${factorId}`,
};

/** The key file beside a database file. */
export function secretKeyFilePath(dbPath: string): string {
  return `${dbPath}.key`;
}

/** What to do when the key at hand is not the database's (the end of every such message). */
const RECOVER =
  'restore the key the database was written with (the file <database>.key from your backup, or PLAT_SECRET_KEY), ' +
  'or discard the sealed secrets with: plat local forget-secrets';

/** 32 bytes from base64, base64url or hex text (surrounding white space ignored). */
export function parseSecretKey(text: string, where: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(t)
    ? Buffer.from(t, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(t)
      ? Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      : undefined;
  if (!key || key.length !== KEY_BYTES) {
    throw new SecretKeyError(
      `${where} must be ${KEY_BYTES} random bytes in base64 or hex (make one with: openssl rand -base64 32)`,
    );
  }
  return key;
}

/** Writes a file whole and durably: its bytes, then its name in the directory, reach the disk before it is used. */
function writeDurably(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The key file's key. A new one is made only for a database that records none (nothing sealed yet): written whole
 * and synced to a private temporary file, then linked into place — which fails if the file exists, so of several
 * processes racing, one makes it and the others read it, and none ever reads a half-written key. A database that
 * records a key whose file is gone gets an error, never a new key.
 */
function keyFromFile(path: string, recorded: string | undefined): Buffer {
  try {
    return parseSecretKey(readFileSync(path, 'utf8'), `the secret key file ${path}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (recorded !== undefined) {
    throw new SecretKeyError(
      `the secret key file ${path} is missing, but the database holds secrets sealed with its key (${recorded}): ` +
        RECOVER,
    );
  }
  const key = randomBytes(KEY_BYTES);
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeDurably(temporary, `${key.toString('base64')}\n`);
  try {
    linkSync(temporary, path);
    syncDirectory(dirname(path));
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return parseSecretKey(readFileSync(path, 'utf8'), `the secret key file ${path}`);
  } finally {
    rmSync(temporary, { force: true });
  }
}

const idOf = (key: Buffer) =>
  createHash('sha256').update('plat secret key id\0').update(key).digest('base64url').slice(0, 8);

/**
 * A secret box over the key of `source` — a key file read (or made) on first use: most commands never seal or open
 * anything — checked against the key id the database records (`record`).
 */
export function secretBox(source: SecretKeySource, record: KeyRecord): SecretBox {
  let loaded: { key: Buffer; id: string } | undefined;
  // A key given in the environment is checked at once: a server with a mistyped one must not start.
  if (source.kind === 'env') {
    const k = parseSecretKey(source.value, 'PLAT_SECRET_KEY');
    loaded = { key: k, id: idOf(k) };
  }
  const where = source.kind === 'env' ? 'PLAT_SECRET_KEY' : source.kind === 'file' ? source.path : 'memory';
  const key = () => {
    if (!loaded) {
      const k = source.kind === 'file' ? keyFromFile(source.path, record.read()) : randomBytes(KEY_BYTES);
      loaded = { key: k, id: idOf(k) };
    }
    return loaded;
  };
  /** The key at hand, if it is the one the database's secrets are sealed with (or none is recorded yet). */
  const checked = () => {
    const k = key();
    const recorded = record.read();
    if (recorded !== undefined && recorded !== k.id) {
      throw new SecretKeyError(
        `the database's secrets are sealed with key ${recorded}, but the key in use (${where}) is ${k.id}: ${RECOVER}`,
      );
    }
    return { ...k, recorded };
  };
  return {
    check() {
      if (record.read() !== undefined) checked();
    },
    seal(plaintext, context) {
      const { key: k, id, recorded } = checked();
      if (recorded === undefined) record.write(id);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', k, iv);
      cipher.setAAD(Buffer.from(context));
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${id}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
    },
    open(stored, context) {
      if (!stored.startsWith(PREFIX)) return stored;
      const [keyId, iv, data] = stored.slice(PREFIX.length).split(':');
      const { key: k, id } = key();
      if (keyId !== id) {
        throw new SecretKeyError(
          `a secret in the database was sealed with key ${keyId}, but the key in use (${where}) is ${id}: ${RECOVER}`,
        );
      }
      try {
        const bytes = Buffer.from(data ?? '', 'base64url');
        const decipher = createDecipheriv('aes-256-gcm', k, Buffer.from(iv ?? '', 'base64url'));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(bytes.subarray(bytes.length - 16));
        return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretKeyError(`a sealed secret in the database (${context}) is damaged and does not open`);
      }
    },
  };
}
