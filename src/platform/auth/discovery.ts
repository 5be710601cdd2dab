import { API_BASE, apiPath } from '../../contract/endpoint.js';
import { oauth } from '../../contract/endpoints/auth.js';
import { openapiDocument } from '../../contract/endpoints/meta.js';
import { type AuthServerMetadata, DEVICE_CODE_GRANT } from '../../contract/oauth.js';
import { PERMISSIONS } from '../../contract/permissions.js';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import type { Reply } from '../http/reply.js';
import { authUrl } from './settings.js';
import { publicJwks, TOKEN_ALG } from './signing-keys.js';

/** Where RFC 8414 §3.1 puts the metadata of an issuer whose path is `/v2/auth`: outside the API's base. */
export const RFC8414_PATH = `/.well-known/oauth-authorization-server${API_BASE}/auth`;

const CACHE = { 'Cache-Control': 'public, max-age=300' };

/** The authorization server's metadata (RFC 8414), the same at both discovery addresses. */
export function serverMetadata(ctx: BaseCtx): AuthServerMetadata {
  const at = (endpoint: { path: string }) => `${ctx.publicUrl}${apiPath(endpoint)}`;
  return {
    issuer: authUrl(ctx),
    authorization_endpoint: at(oauth.authorize),
    token_endpoint: at(oauth.token),
    revocation_endpoint: at(oauth.revoke),
    device_authorization_endpoint: at(oauth.deviceAuthorization),
    jwks_uri: at(oauth.jwks),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...PERMISSIONS],
    authorization_response_iss_parameter_supported: true,
    access_token_signing_alg_values_supported: [TOKEN_ALG],
    service_documentation: at(openapiDocument),
  };
}

/** `GET` of either discovery document. */
export function metadataEndpoint(ctx: BaseCtx, c: PageCall): Reply {
  return c.json(serverMetadata(ctx), 200, CACHE);
}

/** `GET {auth_url}/jwks`: the public keys access tokens are signed with. */
export async function jwksEndpoint(ctx: BaseCtx, c: PageCall): Promise<Reply> {
  return c.json(await publicJwks(ctx), 200, CACHE);
}
