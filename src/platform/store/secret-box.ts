import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Seals the secrets the platform must be able to read back (an SSO client secret, token-signing private keys) before
 * they reach the database, with a key kept apart from it: AES-256-GCM, each value bound to the row it belongs to (the
 * `context`, as additional data), so a sealed value copied into another row does not open. A copy of the database
 * alone — a backup, a dump, a stolen file — holds none of them in clear.
 *
 * Sealed form: `enc:v1:<key id>:<iv>:<ciphertext and tag>`, base64url. The key id names the key a value was sealed
 * with, so a wrong key is told from a damaged value.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** The plaintext of a sealed value; a value from before sealing existed (no `enc:` prefix) is returned as it is. */
  open(stored: string, context: string): string;
  /** Whether a stored value is sealed. */
  isSealed(stored: string): boolean;
}

/** Where the key comes from: `PLAT_SECRET_KEY`, a file beside the database, or (an in-memory database) nowhere. */
export type SecretKeySource = { kind: 'env'; value: string } | { kind: 'file'; path: string } | { kind: 'memory' };

const PREFIX = 'enc:v1:';
const KEY_BYTES = 32;

/** A key given in `PLAT_SECRET_KEY` that is not 32 bytes in base64, base64url or hex. */
export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/** A sealed value that does not open: sealed with another key, or damaged. Never carries the value. */
export class SecretOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretOpenError';
  }
}

/** The row each sealed column's values are bound to (their additional data): one place, for stores and migrations. */
export const SEALED = {
  ssoClientSecret: (orgId: string) => `sso_configs.client_secret:${orgId}`,
  signingKey: (kid: string) => `signing_keys.private_jwk:${kid}`,
};

/** The key file beside a database file. */
export function secretKeyFilePath(dbPath: string): string {
  return `${dbPath}.key`;
}

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

/**
 * The key file's key, made when the file does not exist yet: written whole to a private temporary file, then linked
 * into place, which fails if the file exists — so of several processes racing, one makes it and the others read it,
 * and none ever reads a half-written key.
 */
function keyFromFile(path: string): Buffer {
  try {
    return parseSecretKey(readFileSync(path, 'utf8'), `the secret key file ${path}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(KEY_BYTES);
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
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
 * A secret box over the key of `source`, a key file read (or made) on first use: most commands never seal or open
 * anything.
 */
export function secretBox(source: SecretKeySource): SecretBox {
  let loaded: { key: Buffer; id: string } | undefined;
  // A key given in the environment is checked at once: a server with a mistyped one must not start.
  if (source.kind === 'env') {
    const k = parseSecretKey(source.value, 'PLAT_SECRET_KEY');
    loaded = { key: k, id: idOf(k) };
  }
  const key = () => {
    if (!loaded) {
      const k =
        source.kind === 'env'
          ? parseSecretKey(source.value, 'PLAT_SECRET_KEY')
          : source.kind === 'file'
            ? keyFromFile(source.path)
            : randomBytes(KEY_BYTES);
      loaded = { key: k, id: idOf(k) };
    }
    return loaded;
  };
  const where = source.kind === 'env' ? 'PLAT_SECRET_KEY' : source.kind === 'file' ? source.path : 'memory';
  const isSealed = (stored: string) => stored.startsWith(PREFIX);
  return {
    isSealed,
    seal(plaintext, context) {
      const { key: k, id } = key();
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', k, iv);
      cipher.setAAD(Buffer.from(context));
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${id}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
    },
    open(stored, context) {
      if (!isSealed(stored)) return stored;
      const { key: k, id } = key();
      const [keyId, iv, data] = stored.slice(PREFIX.length).split(':');
      if (keyId !== id) {
        throw new SecretOpenError(
          `a secret in the database was sealed with key ${keyId}, but the key in use (${where}) is ${id}: ` +
            'give the key the database was written with (PLAT_SECRET_KEY, or the key file beside the database)',
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
        throw new SecretOpenError(`a sealed secret in the database (${context}) is damaged and does not open`);
      }
    },
  };
}
