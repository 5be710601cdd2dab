import { X509Certificate } from 'node:crypto';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { checkFetchable } from './fetch.js';
import { children, NS } from './saml-xml.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
/** The binding the platform sends its AuthnRequest by (docs/sso.md). */
export const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** One signing certificate of an identity provider. */
export interface IdpCertificate {
  /** The certificate, PEM. */
  pem: string;
  /** SHA-256 of the DER, upper-case hex in pairs (`AB:CD:…`), as identity providers show it. */
  fingerprint: string;
  notAfter: string;
}

/** The most signing certificates an identity provider may list (see `parseIdpMetadata`). */
export const MAX_CERTIFICATES = 5;

/** What the platform takes from an identity provider's SAML metadata. */
export interface IdpMetadata {
  entityId: string;
  /** Where the AuthnRequest goes (HTTP-Redirect). */
  ssoUrl: string;
  certificates: IdpCertificate[];
}

/** Metadata that is not what the platform can sign people in with; the message says why. */
export class MetadataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetadataError';
  }
}

/** A certificate of a `KeyDescriptor`: base64 DER in `ds:X509Certificate`. */
function certificateOf(key: Element): IdpCertificate[] {
  const texts = Array.from(key.getElementsByTagNameNS(NS.ds, 'X509Certificate')).map((e) =>
    (e.textContent ?? '').replace(/\s+/g, ''),
  );
  return texts.map((b64) => {
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(Buffer.from(b64, 'base64'));
    } catch {
      throw new MetadataError('holds a signing certificate that is not a valid X.509 certificate');
    }
    const lines = b64.match(/.{1,64}/g) ?? [];
    return {
      pem: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
      fingerprint: cert.fingerprint256,
      notAfter: new Date(cert.validTo).toISOString(),
    };
  });
}

/** The one identity provider's `EntityDescriptor` of a document (which may list several entities). */
function identityProvider(root: Element): { entity: Element; idp: Element } {
  const entities =
    root.namespaceURI === MD && root.localName === 'EntityDescriptor'
      ? [root]
      : root.namespaceURI === MD && root.localName === 'EntitiesDescriptor'
        ? Array.from(root.getElementsByTagNameNS(MD, 'EntityDescriptor'))
        : [];
  if (entities.length === 0) throw new MetadataError('is not SAML 2.0 metadata (no md:EntityDescriptor)');
  const found = entities.flatMap((entity) =>
    children(entity, MD, 'IDPSSODescriptor')
      .filter((idp) => (idp.getAttribute('protocolSupportEnumeration') ?? '').split(/\s+/).includes(NS.samlp))
      .map((idp) => ({ entity, idp })),
  );
  if (found.length === 0) throw new MetadataError('describes no SAML 2.0 identity provider (no md:IDPSSODescriptor)');
  if (found.length > 1) throw new MetadataError('describes several identity providers: give the metadata of one');
  return found[0] as { entity: Element; idp: Element };
}

/**
 * Reads an identity provider's SAML metadata (docs/sso.md): its entity id, the HTTP-Redirect SingleSignOnService
 * location, and at least one signing certificate (several when it rotates keys). A document type declaration is
 * refused outright: metadata needs none, and it is how entity-expansion attacks start.
 */
export function parseIdpMetadata(xml: string): IdpMetadata {
  if (/<!DOCTYPE/i.test(xml)) throw new MetadataError('must not contain a document type declaration (<!DOCTYPE>)');
  const problems: string[] = [];
  let root: Element | null = null;
  try {
    const doc = new DOMParser({
      onError: (level: string, message: string) => {
        if (level !== 'warning') problems.push(message);
      },
    }).parseFromString(xml, 'text/xml');
    root = doc.documentElement;
  } catch (err) {
    // A fatal error stops the parser with a ParseError.
    problems.push((err as Error).message);
  }
  if (problems.length > 0 || !root) {
    throw new MetadataError(`is not well-formed XML${problems[0] ? `: ${problems[0].split('\n')[0]}` : ''}`);
  }
  const { entity, idp } = identityProvider(root);
  const entityId = entity.getAttribute('entityID');
  if (!entityId) throw new MetadataError('names no entityID');
  const redirect = children(idp, MD, 'SingleSignOnService').find((s) => s.getAttribute('Binding') === HTTP_REDIRECT);
  const ssoUrl = redirect?.getAttribute('Location');
  if (!ssoUrl) throw new MetadataError('offers no SingleSignOnService with the HTTP-Redirect binding');
  try {
    checkFetchable(ssoUrl);
  } catch (err) {
    throw new MetadataError(`SingleSignOnService location ${ssoUrl} ${(err as Error).message}`);
  }
  const certificates = children(idp, MD, 'KeyDescriptor')
    .filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap(certificateOf);
  if (certificates.length === 0) throw new MetadataError('holds no signing certificate (md:KeyDescriptor)');
  // Each response's signature is tried against each: a rotation needs two or three, not hundreds.
  if (certificates.length > MAX_CERTIFICATES) {
    throw new MetadataError(`holds more than ${MAX_CERTIFICATES} signing certificates`);
  }
  return { entityId, ssoUrl, certificates };
}
