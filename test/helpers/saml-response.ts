import { readFileSync } from 'node:fs';
import { samlify } from './samlify.js';

/** The test IdP's keys: its two signing keys (rotation) and a stranger's that its metadata never names. */
export type SamlKeyName = 'first' | 'second' | 'stranger';

/** A private key and its self-signed certificate, both PEM (test fixtures: `test/fixtures/sso/`). */
export interface SamlKeyPair {
  key: string;
  cert: string;
}

const FILES: Record<SamlKeyName, string> = { first: 'idp-first', second: 'idp-second', stranger: 'stranger' };
const fixture = (name: string) => readFileSync(new URL(`../fixtures/sso/${name}`, import.meta.url), 'utf8');

/** The key pairs, read once. */
export const SAML_KEYS: Record<SamlKeyName, SamlKeyPair> = Object.fromEntries(
  Object.entries(FILES).map(([k, file]) => [
    k,
    { key: fixture(`${file}.test-key.pem`), cert: fixture(`${file}.test-cert.pem`) },
  ]),
) as Record<SamlKeyName, SamlKeyPair>;

/** A certificate's base64 body, as metadata and KeyInfo carry it. */
export function certBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
}

/** Who the IdP says signed in. `email` and `name` go out as attributes of those names, next to `attributes`. */
export interface SamlUser {
  nameId: string;
  /** Default: emailAddress. */
  nameIdFormat?: string;
  email?: string;
  name?: string;
  attributes?: Record<string, string>;
}

/** Which parts carry an enveloped signature. */
export type SignedParts = 'assertion' | 'response' | 'both' | 'none';

/** Everything a response says, resolved (saml-idp.ts fills in the defaults). */
export interface ResponseFields {
  responseId: string;
  assertionId: string;
  issuer: string;
  /** `null`: unsolicited (IdP-initiated), the attribute left out of Response and SubjectConfirmationData. */
  inResponseTo: string | null;
  /** Response@Destination; `null` leaves it out. */
  destination: string | null;
  /** SubjectConfirmationData@Recipient. */
  recipient: string;
  audience: string;
  issuedAt: Date;
  /** Conditions@NotBefore; `null` leaves it out. */
  notBefore: Date | null;
  /** Conditions@NotOnOrAfter and SubjectConfirmationData@NotOnOrAfter. */
  notOnOrAfter: Date;
  user: SamlUser;
  sign: SignedParts;
  keys: { response: SamlKeyPair; assertion: SamlKeyPair };
  /** A top-level StatusCode other than Success sends no assertion, as IdPs do when they refuse someone. */
  status: string;
}

export const STATUS_SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const BASIC = 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic';
const AUTHN_STATEMENT =
  '<saml:AuthnStatement AuthnInstant="{IssueInstant}" SessionIndex="{SessionIndex}"><saml:AuthnContext>' +
  '<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport' +
  '</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>';
const child = (parent: string, name: string) => `/*[local-name(.)='${parent}']/*[local-name(.)='${name}']`;

/** The attributes a user's assertion carries, by name. */
export function attributesOf(user: SamlUser): Record<string, string> {
  return {
    ...(user.email === undefined ? {} : { email: user.email }),
    ...(user.name === undefined ? {} : { name: user.name }),
    ...user.attributes,
  };
}

/**
 * The Response XML, from samlify's own login-response template (its tag replacement escapes every value) and signed
 * by samlify's signer (xml-crypto; RSA-SHA256, exclusive c14n, signature after the Issuer as SAML requires): the
 * assertion first, then the response around it, as an IdP that signs both does.
 */
export function buildResponse(f: ResponseFields): string {
  const attributes = Object.entries(attributesOf(f.user));
  // samlify's builder pastes names in unescaped and keys values by a camel-cased tag: plain tags, names checked here.
  for (const [name] of attributes) if (/[<>&"]/.test(name)) throw new Error(`attribute name ${name} needs escaping`);
  const statement = attributes.length
    ? samlify.SamlLib.attributeStatementBuilder(
        attributes.map(([name], i) => ({ name, nameFormat: BASIC, valueTag: `v${i}`, valueXsiType: 'xs:string' })),
      )
    : '';
  let template = samlify.SamlLib.defaultLoginResponseTemplate.context
    .replace('{AuthnStatement}', AUTHN_STATEMENT)
    .replace('{AttributeStatement}', statement);
  if (f.status !== STATUS_SUCCESS) template = template.replace(/<saml:Assertion .*<\/saml:Assertion>/, '');
  const xml = samlify.SamlLib.replaceTagsByValue(template, {
    ID: f.responseId,
    AssertionID: f.assertionId,
    Destination: f.destination,
    Audience: f.audience,
    SubjectRecipient: f.recipient,
    Issuer: f.issuer,
    IssueInstant: f.issuedAt.toISOString(),
    StatusCode: f.status,
    ConditionsNotBefore: f.notBefore?.toISOString(),
    ConditionsNotOnOrAfter: f.notOnOrAfter.toISOString(),
    SubjectConfirmationDataNotOnOrAfter: f.notOnOrAfter.toISOString(),
    NameIDFormat: f.user.nameIdFormat ?? EMAIL_FORMAT,
    NameID: f.user.nameId,
    InResponseTo: f.inResponseTo,
    SessionIndex: `${f.assertionId}-session`,
    ...Object.fromEntries(attributes.map(([, value], i) => [`attrV${i}`, value])),
  });
  let signed = xml;
  if ((f.sign === 'assertion' || f.sign === 'both') && f.status === STATUS_SUCCESS) {
    signed = sign(
      signed,
      f.keys.assertion,
      child('Response', 'Assertion'),
      `${child('Response', 'Assertion')}/*[local-name(.)='Issuer']`,
    );
  }
  if (f.sign === 'response' || f.sign === 'both') {
    signed = sign(signed, f.keys.response, undefined, child('Response', 'Issuer'));
  }
  return signed;
}

/** An enveloped signature over `reference` (the whole message when none), placed after `after`. */
function sign(xml: string, pair: SamlKeyPair, reference: string | undefined, after: string): string {
  return samlify.SamlLib.constructSAMLSignature({
    rawSamlMessage: xml,
    ...(reference ? { referenceTagXPath: reference } : { isMessageSigned: true }),
    privateKey: pair.key,
    signatureAlgorithm: RSA_SHA256,
    // KeyInfo names the key that really signed: a verifier that trusted KeyInfo would accept a stranger's response.
    signingCert: certBody(pair.cert),
    isBase64Output: false,
    signatureConfig: { prefix: 'ds', location: { reference: after, action: 'after' } },
  });
}
