/**
 * The clock skew an identity provider's timestamps are given, on the platform's clock (docs/sso.md): a SAML
 * assertion's `NotBefore`/`NotOnOrAfter`, an OpenID Connect ID token's `iat`.
 */
export const SSO_CLOCK_SKEW_MS = 3 * 60_000;
