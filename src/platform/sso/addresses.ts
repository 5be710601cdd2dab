import { API_BASE, apiPath } from '../../contract/endpoint.js';
import { ssoSignIn } from '../../contract/endpoints/sso-sign-in.js';

/** The addresses the identity provider's administrator enters on their side, under the instance's public URL. */
export function ssoAddresses(publicUrl: string, orgId: string) {
  return {
    // The entity id is a name, not an address: the prefix of the SP's two addresses, kept as every IdP has it.
    spEntityId: `${publicUrl}${API_BASE}/sso/saml/${orgId}`,
    spMetadataUrl: `${publicUrl}${apiPath(ssoSignIn.samlMetadata, orgId)}`,
    acsUrl: `${publicUrl}${apiPath(ssoSignIn.samlAcs, orgId)}`,
    redirectUri: `${publicUrl}${apiPath(ssoSignIn.oidcCallback, orgId)}`,
  };
}
