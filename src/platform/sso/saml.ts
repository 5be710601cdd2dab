import { generateServiceProviderMetadata, SAML, type SamlConfig, ValidateInResponseTo } from '@node-saml/node-saml';
import type { BaseCtx } from '../context.js';
import type { StoredSso } from '../store/sso.js';
import type { SsoRequest } from '../store/sso-sign-in.js';
import { ssoAddresses } from './addresses.js';

// The platform as a SAML 2.0 service provider (docs/sso.md), over node-saml. This module and its siblings load
// node-saml and @xmldom/xmldom: route handlers import them lazily, so that no other start pays for them.

/**
 * The NameID format asked for: unspecified, so that the identity provider sends the identifier its administrator
 * chose (Entra ID, Okta and Google refuse a request for a format they were not set up with). The NameID is only the
 * identity's key; the e-mail comes from the mapped attribute.
 */
export const NAMEID_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';

/**
 * node-saml set up for an organization's identity provider, every risky default explicit:
 * - SHA-256 for whatever it signs or digests (its default is SHA-1);
 * - `acceptedClockSkewMs: -1` turns its time checks off: it reads the system clock, and the platform keeps time by
 *   its own (saml-assertion.ts checks the validity window on it, with 3 minutes of skew);
 * - `validateInResponseTo: never` leaves `InResponseTo` to the platform, which redeems it in its store (single-use,
 *   bound to the organization, 10 minutes on the platform's clock: node-saml's cache would use the system clock and
 *   one process's memory);
 * - which signatures are required is decided per response (saml-response.ts), so both defaults are off here.
 */
function samlOptions(ctx: BaseCtx, config: StoredSso, extra: Partial<SamlConfig> = {}): SamlConfig {
  const { spEntityId, acsUrl } = ssoAddresses(ctx.publicUrl, config.organizationId);
  return {
    entryPoint: config.idpSsoUrl ?? undefined,
    issuer: spEntityId,
    audience: spEntityId,
    callbackUrl: acsUrl,
    idpCert: config.certificates.map((c) => c.pem),
    identifierFormat: NAMEID_FORMAT,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    acceptedClockSkewMs: -1,
    validateInResponseTo: ValidateInResponseTo.never,
    wantAssertionsSigned: false,
    wantAuthnResponseSigned: false,
    // No RequestedAuthnContext: asking for password authentication would refuse people who use a passkey or MFA.
    disableRequestedAuthnContext: true,
    ...extra,
  };
}

/** node-saml whose AuthnRequest is the platform's: its ID and IssueInstant are the recorded request's. */
class RequestSaml extends SAML {
  readonly #request: SsoRequest;

  constructor(options: SamlConfig, request: SsoRequest) {
    super({ ...options, generateUniqueId: () => request.id });
    this.#request = request;
  }

  protected override async generateAuthorizeRequestAsync(isPassive: boolean, isHttpPostBinding: boolean) {
    const xml = await super.generateAuthorizeRequestAsync(isPassive, isHttpPostBinding);
    // node-saml stamps the system time; the request was made at the platform's (its only IssueInstant attribute).
    return xml.replace(/ IssueInstant="[^"]*"/, ` IssueInstant="${this.#request.createdAt}"`);
  }
}

/**
 * Where the browser goes to sign in at the organization's identity provider: its SSO URL with an AuthnRequest by the
 * HTTP-Redirect binding (deflated, base64 `SAMLRequest`), unsigned — ID the request's, Issuer the SP entity id,
 * AssertionConsumerServiceURL the ACS URL, ProtocolBinding HTTP-POST, Destination the SSO URL, NameIDPolicy
 * unspecified — and `RelayState` the request's id.
 */
export async function signInUrl(ctx: BaseCtx, config: StoredSso, request: SsoRequest): Promise<string> {
  if (config.protocol !== 'saml' || !config.idpSsoUrl) throw new Error('signInUrl needs a SAML configuration');
  if (request.protocol !== 'saml' || request.orgId !== config.organizationId) {
    throw new Error('signInUrl needs a SAML request of the same organization');
  }
  const saml = new RequestSaml(samlOptions(ctx, config), request);
  return saml.getAuthorizeUrlAsync(request.id, undefined, {});
}

/** node-saml ready to check a response to the organization's service provider, with the signatures it must require. */
export function responseValidator(
  ctx: BaseCtx,
  config: StoredSso,
  want: { response: boolean; assertion: boolean },
): SAML {
  return new SAML(
    samlOptions(ctx, config, { wantAuthnResponseSigned: want.response, wantAssertionsSigned: want.assertion }),
  );
}

/**
 * The SP metadata of an organization (what its identity provider's administrator imports): entity id, the ACS
 * (HTTP-POST), the NameID format, `WantAssertionsSigned` (what IdPs do by default and the safer choice; a response
 * signed as a whole is accepted too). No key: AuthnRequests are not signed, and assertions are not encrypted.
 */
export function spMetadata(ctx: BaseCtx, orgId: string): string {
  const { spEntityId, acsUrl } = ssoAddresses(ctx.publicUrl, orgId);
  return generateServiceProviderMetadata({
    issuer: spEntityId,
    callbackUrl: acsUrl,
    identifierFormat: NAMEID_FORMAT,
    wantAssertionsSigned: true,
    // The same document each time (node-saml would make a random one): an ID is an NCName, hence the `_`.
    generateUniqueId: () => `_${orgId}`,
  });
}
