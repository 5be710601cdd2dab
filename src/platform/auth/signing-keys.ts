import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import type { BaseCtx } from '../context.js';
import type { Db } from '../store/db.js';

/** The one signature algorithm tokens are signed and verified with. */
export const TOKEN_ALG = 'ES256';

/** A usable signing key. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
}

/** Keys already read from each database: they never change while a platform runs, except by being added. */
const loaded = new WeakMap<Db, SigningKey[]>();

/** RFC 7638 thumbprint of an EC public key: the `kid`. */
function thumbprint(jwk: JWK): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

function load(ctx: BaseCtx): SigningKey[] {
  return ctx.stores.auth.signingKeys().map((k) => {
    const publicJwk = { ...(JSON.parse(k.publicJwk) as JWK), kid: k.kid, alg: TOKEN_ALG, use: 'sig' };
    return {
      kid: k.kid,
      privateKey: createPrivateKey({ key: JSON.parse(k.privateJwk), format: 'jwk' }),
      publicKey: createPublicKey({ key: JSON.parse(k.publicJwk), format: 'jwk' }),
      publicJwk,
    };
  });
}

/** Makes the instance's first P-256 key pair, unless another process made one meanwhile (checked under the lock). */
function ensureKey(ctx: BaseCtx): void {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  ctx.tx(() => {
    if (ctx.stores.auth.signingKeys().length > 0) return;
    ctx.stores.auth.insertSigningKey({
      kid: thumbprint(publicJwk),
      alg: TOKEN_ALG,
      privateJwk: JSON.stringify(privateKey.export({ format: 'jwk' })),
      publicJwk: JSON.stringify(publicJwk),
      createdAt: ctx.now(),
    });
  });
}

/** Every key tokens may be signed with, newest first; creates and persists the first one on first use. */
export function signingKeys(ctx: BaseCtx, reload = false): SigningKey[] {
  let keys = reload ? undefined : loaded.get(ctx.db);
  if (!keys || keys.length === 0) {
    keys = load(ctx);
    if (keys.length === 0) {
      ensureKey(ctx);
      keys = load(ctx);
    }
    loaded.set(ctx.db, keys);
  }
  return keys;
}

/** The key new tokens are signed with. */
export function currentSigningKey(ctx: BaseCtx): SigningKey {
  return signingKeys(ctx)[0] as SigningKey;
}

/** The key with this `kid` (re-reading the database once, in case another process added it), or undefined. */
export function signingKeyById(ctx: BaseCtx, kid: string): SigningKey | undefined {
  return signingKeys(ctx).find((k) => k.kid === kid) ?? signingKeys(ctx, true).find((k) => k.kid === kid);
}

/** The JWKS document: the public halves only. */
export function publicJwks(ctx: BaseCtx): { keys: JWK[] } {
  return { keys: signingKeys(ctx).map((k) => k.publicJwk) };
}
