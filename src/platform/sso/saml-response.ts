import type { Element } from '@xmldom/xmldom';
import { attr, children, NS, nestsDeeperThan, onlyChild, parseXml, refuse, textOf } from './saml-xml.js';

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/**
 * How deep a response may nest: a real one is about a dozen elements deep (Response, Assertion, AttributeStatement,
 * Attribute, AttributeValue; Signature, KeyInfo, X509Data…). Deeper is refused before the signature code, whose
 * canonicalization and XPath get slow (and recursive) on absurd nesting.
 */
const MAX_DEPTH = 64;
/**
 * The largest response read: a real one is a few kilobytes (tens with many group attributes); checking signatures costs
 * time in proportion to the size, and anyone may post one.
 */
const MAX_RESPONSE_BYTES = 128 * 1024;

/**
 * The XML of a posted `SAMLResponse`: strict base64 (an IdP may wrap its lines), UTF-8. Also returns the base64 as
 * node-saml is handed it — canonical, of the very bytes checked here, since node-saml decodes leniently.
 */
export function decodeSamlResponse(posted: string): { xml: string; base64: string } {
  const compact = posted.replace(/\s+/g, '');
  if (compact === '' || compact.length % 4 !== 0 || !BASE64.test(compact)) refuse('the SAMLResponse is not base64');
  if ((compact.length / 4) * 3 > MAX_RESPONSE_BYTES + 2) refuse('the SAMLResponse is larger than 128 KiB');
  const bytes = Buffer.from(compact, 'base64');
  let xml: string;
  try {
    xml = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse('the SAMLResponse is not well-formed XML');
  }
  return { xml, base64: bytes.toString('base64') };
}

/** What the platform reads of a response before its signatures are checked: its structure, nothing it trusts. */
export interface ResponseEnvelope {
  /** Response@Destination (only refusals are drawn from it: it is signed only when the response is). */
  destination: string | null;
  /** The Response's own Issuer, when it has one. */
  issuer: string | null;
  /** Response@InResponseTo: it must agree with the one inside the assertion, which is what counts. */
  inResponseTo: string | null;
  /** Which parts carry an enveloped signature: each one that does must verify (docs/sso.md). */
  signed: { response: boolean; assertion: boolean };
}

/** The status codes of a refused sign-in, for the page: their last segments, when they look like status names. */
function statusNames(status: Element): string {
  const names: string[] = [];
  let code = onlyChild(status, NS.samlp, 'StatusCode', 'the response carries several statuses');
  while (code && names.length < 2) {
    const name = (attr(code, 'Value') ?? '').split(':').at(-1) ?? '';
    names.push(/^[A-Za-z]{1,40}$/.test(name) ? name : 'unknown');
    code = children(code, NS.samlp, 'StatusCode')[0];
  }
  return names.join('/') || 'unknown';
}

/**
 * Reads a response's structure and refuses what no signature check should even see: not a SAML 2.0 Response, or
 * nested absurdly deep; a
 * status other than Success (the identity provider refused the person: 403); an encrypted assertion (this service
 * provider publishes no encryption key); no assertion, or more than one beside each other (signature wrapping puts a
 * forged one next to the signed one); neither the response nor its assertion signed.
 */
export function readEnvelope(xml: string): ResponseEnvelope {
  const root = parseXml(xml, 'the SAMLResponse');
  if (nestsDeeperThan(root, MAX_DEPTH)) refuse(`the SAMLResponse nests deeper than ${MAX_DEPTH} elements`);
  if (root.namespaceURI !== NS.samlp || root.localName !== 'Response') {
    refuse('the SAMLResponse is not a SAML 2.0 Response');
  }
  const status = onlyChild(root, NS.samlp, 'Status', 'the response carries several statuses');
  if (!status) refuse('the response carries no status');
  const code = onlyChild(status, NS.samlp, 'StatusCode', 'the response carries several statuses');
  if (attr(code, 'Value') !== SUCCESS) {
    refuse(`the identity provider did not sign the person in (status ${statusNames(status)})`, 403);
  }
  if (children(root, NS.saml, 'EncryptedAssertion').length > 0) {
    refuse('the assertion is encrypted, and this service provider has no decryption key');
  }
  const assertions = children(root, NS.saml, 'Assertion');
  if (assertions.length > 1) refuse('the response carries more than one assertion');
  const [assertion] = assertions;
  if (!assertion) refuse('the response carries no assertion');
  const signed = {
    response: children(root, NS.ds, 'Signature').length > 0,
    assertion: children(assertion, NS.ds, 'Signature').length > 0,
  };
  if (!signed.response && !signed.assertion) refuse('neither the response nor its assertion is signed');
  return {
    destination: attr(root, 'Destination'),
    issuer: textOf(onlyChild(root, NS.saml, 'Issuer', 'the response names several issuers')),
    inResponseTo: attr(root, 'InResponseTo'),
    signed,
  };
}
