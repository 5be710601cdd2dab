import { CompactSign, type CryptoKey, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import type { ProviderContext } from 'oidc-provider';

/**
 * How the test IdP misbehaves, for a relying party's negative tests. Each one is sent by the IdP itself, over its
 * real endpoints, to a relying party that does nothing special: no mock of the relying party is involved.
 */
export interface Forgery {
  /**
   * Claims of the ID token that the token endpoint returns, replaced (`undefined` removes a claim): `nonce`, `iss`,
   * `aud`, `exp`, `sub`, `email`… The IdP re-signs the token with its own key, under the same `alg` and `kid`, so
   * the signature verifies against its JWKS. (oidc-provider itself always signs `aud` = the client and `iss` = its
   * issuer, see lib/models/id_token.js, hence the re-signing: it is the only way a real provider sends these.)
   */
  idTokenClaims?: Record<string, unknown>;
  /** The ID token is signed by a key that is not in the IdP's JWKS, under the `kid` of the real one. */
  foreignKey?: boolean;
  /** The `iss` parameter of the authorization response (RFC 9207) names this issuer instead of the real one. */
  responseIss?: string;
  /** The discovery document claims this `issuer` instead of the real one. */
  discoveryIssuer?: string;
}

/** A post-middleware of the provider's own Koa app that applies the forgery in force when a response leaves. */
export function forgeryMiddleware(forgery: () => Forgery, signingKey: CryptoKey) {
  let foreignKey: Promise<CryptoKey> | undefined;
  return async (ctx: ProviderContext, next: () => Promise<void>): Promise<void> => {
    await next();
    const f = forgery();
    const route = ctx.oidc?.route;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (route === 'token' && typeof body?.id_token === 'string' && (f.idTokenClaims || f.foreignKey)) {
      foreignKey ??= generateKeyPair('RS256').then((pair) => pair.privateKey);
      const key = f.foreignKey ? await foreignKey : signingKey;
      ctx.body = { ...body, id_token: await resign(body.id_token, f.idTokenClaims ?? {}, key) };
    } else if (route === 'discovery' && f.discoveryIssuer && body) {
      ctx.body = { ...body, issuer: f.discoveryIssuer };
    } else if ((route === 'authorization' || route === 'resume') && f.responseIss) {
      // Only the redirect to the relying party carries `iss`; the ones inside the IdP are relative.
      const location = ctx.response.get('Location');
      if (!URL.canParse(location)) return;
      const url = new URL(location);
      if (!url.searchParams.has('iss')) return;
      url.searchParams.set('iss', f.responseIss);
      ctx.response.set('Location', url.href);
    }
  };
}

/** The same JWT with some claims replaced or removed, signed again under its own protected header. */
async function resign(jwt: string, claims: Record<string, unknown>, key: CryptoKey): Promise<string> {
  const header = decodeProtectedHeader(jwt);
  const payload: Record<string, unknown> = decodeJwt(jwt);
  for (const [name, value] of Object.entries(claims)) {
    if (value === undefined) delete payload[name];
    else payload[name] = value;
  }
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ ...header, alg: header.alg ?? 'RS256' })
    .sign(key);
}
