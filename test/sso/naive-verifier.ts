import { DOMParser, type Element, XMLSerializer } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

// The verifier signature wrapping was invented against, written here (with xml-crypto) so that the forged responses
// are shown to be real attacks: each one fools it, and node-saml refuses each one.

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DS = 'http://www.w3.org/2000/09/xmldsig#';

/** The first child element of `el` named `name` in the SAML assertion namespace. */
function child(el: Element, name: string): Element {
  const found = Array.from(el.childNodes).find(
    (n) => n.nodeType === 1 && (n as Element).namespaceURI === SAML && (n as Element).localName === name,
  );
  if (!found) throw new Error(`no ${name} in ${el.localName}`);
  return found as Element;
}

const firstText = (el: Element) => (el.firstChild as unknown as { data: string }).data;

/**
 * A verifier that makes the classic mistake: it checks that the document's (first) signature verifies with the IdP's
 * certificate, then reads `/Response/Assertion[1]/Subject/NameID` of the document rather than what the signature
 * covers — and, of the NameID and the `email` attribute, their first text nodes.
 */
export function naive(xml: string, cert: string): { nameId: string; email: string } | null {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const signature = doc.getElementsByTagNameNS(DS, 'Signature')[0];
  if (!signature) return null;
  const sig = new SignedXml({ publicCert: cert });
  sig.loadSignature(new XMLSerializer().serializeToString(signature));
  try {
    if (!sig.checkSignature(xml)) return null;
  } catch {
    return null; // xml-crypto throws on a wrong signature value, returns false on a wrong digest
  }
  const assertion = child(doc.documentElement as Element, 'Assertion');
  const nameId = child(child(assertion, 'Subject'), 'NameID');
  const email = Array.from(child(assertion, 'AttributeStatement').childNodes).find(
    (a) => a.nodeType === 1 && (a as Element).getAttribute('Name') === 'email',
  ) as Element;
  return { nameId: firstText(nameId), email: firstText(child(email, 'AttributeValue')) };
}
