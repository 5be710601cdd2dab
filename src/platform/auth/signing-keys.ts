import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import type { BaseCtx } from '../context.js';
import type { SqlDb } from '../store/sql.js';

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
const loaded = new WeakMap<SqlDb, SigningKey[]>();

/** RFC 7638 thumbprint of an EC public key: the `kid`. */
function thumbprint(jwk: JWK): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

async function load(ctx: BaseCtx): Promise<SigningKey[]> {
  return (await ctx.stores.auth.signingKeys()).map((k) => {
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
async function ensureKey(ctx: BaseCtx): Promise<void> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const privateJwk = privateKey.export({ format: 'jwk' });
  await ctx.tx(async (ctx) => {
    if ((await ctx.stores.auth.signingKeys()).length > 0) return;
    await ctx.stores.auth.insertSigningKey({
      kid: thumbprint(publicJwk),
      alg: TOKEN_ALG,
      privateJwk: JSON.stringify(privateJwk),
      publicJwk: JSON.stringify(publicJwk),
      createdAt: ctx.now(),
    });
  });
}

/** Every key tokens may be signed with, newest first; creates and persists the first one on first use. */
export async function signingKeys(ctx: BaseCtx, reload = false): Promise<SigningKey[]> {
  let keys = reload ? undefined : loaded.get(ctx.sql);
  if (!keys || keys.length === 0) {
    keys = await load(ctx);
    if (keys.length === 0) {
      await ensureKey(ctx);
      keys = await load(ctx);
    }
    loaded.set(ctx.sql, keys);
  }
  return keys;
}

/** The key new tokens are signed with. */
export async function currentSigningKey(ctx: BaseCtx): Promise<SigningKey> {
  return (await signingKeys(ctx))[0] as SigningKey;
}

/** The key with this `kid` (re-reading the database once, in case another process added it), or undefined. */
export async function signingKeyById(ctx: BaseCtx, kid: string): Promise<SigningKey | undefined> {
  return (
    (await signingKeys(ctx)).find((k) => k.kid === kid) ?? (await signingKeys(ctx, true)).find((k) => k.kid === kid)
  );
}

/** The JWKS document: the public halves only. */
export async function publicJwks(ctx: BaseCtx): Promise<{ keys: JWK[] }> {
  return { keys: (await signingKeys(ctx)).map((k) => k.publicJwk) };
}
