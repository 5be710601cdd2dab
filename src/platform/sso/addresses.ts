/** The addresses the identity provider's administrator enters on their side, under the instance's public URL. */
export function ssoAddresses(publicUrl: string, orgId: string) {
  const sp = `${publicUrl}/v2/sso/saml/${orgId}`;
  return {
    spEntityId: sp,
    spMetadataUrl: `${sp}/metadata`,
    acsUrl: `${sp}/acs`,
    redirectUri: `${publicUrl}/v2/sso/oidc/${orgId}/callback`,
  };
}
