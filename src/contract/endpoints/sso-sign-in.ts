import { endpoint } from '../endpoint.js';
import { oidcCallbackQuerySchema, samlPostSchema } from '../oauth.js';
import { envelope, onward, page } from './answers.js';
import { orgParams } from './params.js';

const tag = 'sso';
const access = 'public' as const;

export const ssoSignIn = {
  oidcCallback: endpoint({
    method: 'GET',
    path: '/sso/oidc/{orgId}/callback',
    params: orgParams,
    operationId: 'oidcCallback',
    summary: "OpenID Connect redirect URI: the organization's OpenID provider sends the person back here",
    description:
      'Query: `code`, `state` and `iss` (or `error`). The state is single-use, for this organization, at most ' +
      '10 minutes old; the code is exchanged with PKCE and the ID token checked (signature against the JWKS, ' +
      '`iss`, `aud`, `exp`, `nonce`) before the person is provisioned and the sign-in goes on (the OAuth client ' +
      'gets its code: 303). A refusal is an HTML page (400/403) naming the check that failed.',
    tag,
    access,
    limit: 'identity-provider',
    query: oidcCallbackQuerySchema,
    answers: {
      200: page('A device connected, or a test sign-in that worked'),
      303: onward('On to the OAuth client with its `code`'),
      400: page('A refusal naming the check that failed'),
      403: page('A refused person, or single sign-on that is off or not set up'),
    },
  }),
  samlMetadata: endpoint({
    method: 'GET',
    path: '/sso/saml/{orgId}/metadata',
    params: orgParams,
    operationId: 'samlMetadata',
    summary: "The organization's SAML service provider metadata (XML), to import at the identity provider",
    description:
      'Entity id `{public URL}/v2/sso/saml/{orgId}`, the assertion consumer service (HTTP-POST), NameID format ' +
      'unspecified, `WantAssertionsSigned`. Served for every organization (the identity provider is usually set up ' +
      'first); 404 for an unknown one. `Content-Type: application/samlmetadata+xml`.',
    tag,
    access,
    answers: {
      200: { description: 'The metadata', body: 'saml-metadata' },
      404: envelope('No such organization'),
    },
  }),
  samlAcs: endpoint({
    method: 'POST',
    path: '/sso/saml/{orgId}/acs',
    params: orgParams,
    operationId: 'samlAcs',
    summary: 'SAML assertion consumer service: the identity provider’s page posts its response here',
    description:
      'Form-encoded `SAMLResponse` (base64) and `RelayState`. Accepted only when every check of single sign-on holds: ' +
      'a signature by a certificate of the metadata over what is used (both when both parts are signed), Audience ' +
      'the SP entity id, Destination (required on a signed response) and Recipient the ACS URL, Issuer the ' +
      "identity provider's entity id, NotBefore/NotOnOrAfter within 3 minutes of skew, an assertion id not seen " +
      'before, and `InResponseTo` a request of this organization, unused and at most 10 minutes old (unsolicited ' +
      'responses only with `allowIdpInitiated`). Then the person is provisioned and the sign-in goes on (the OAuth ' +
      'client gets its code: 303). A refusal is an HTML page (400, or 403 for a refused person) naming the check.',
    tag,
    access,
    limit: 'identity-provider',
    form: samlPostSchema,
    answers: {
      200: page('Signed in (a response the identity provider started), a device connected, or a test that worked'),
      303: onward('On to the OAuth client with its `code`'),
      400: page('A refusal naming the check that failed'),
      403: page('A refused person, a status other than Success, or single sign-on that is off or not set up'),
    },
  }),
} as const;
