import type { Element } from '@xmldom/xmldom';
import type { ResponseEnvelope } from './saml-response.js';
import { attr, children, NS, onlyChild, parseXml, refuse, textOf } from './saml-xml.js';

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

/** What the service provider expects of an assertion: its identity provider, its own ACS, now and the skew. */
export interface Expected {
  idpEntityId: string;
  acsUrl: string;
  /** The platform's clock, in ms. */
  now: number;
  skewMs: number;
}

/** What an accepted assertion leaves for the rest of the sign-in. */
export interface AssertionFacts {
  /** Its ID, recorded until `keepUntil` so that it is accepted once. */
  id: string;
  /** The request it answers (from its bearer subject confirmation); null when unsolicited (IdP-initiated). */
  inResponseTo: string | null;
  /** After this, the assertion would be refused as expired anyway. */
  keepUntil: string;
}

/** xs:dateTime, as SAML writes its times (in UTC, which a time without a zone is taken to be). */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?$/;

function instant(value: string | null): number | null {
  if (value === null) return null;
  const m = DATE_TIME.exec(value);
  const ms = m ? Date.parse(m[2] ? value : `${value}Z`) : Number.NaN;
  if (Number.isNaN(ms)) refuse('a time of the assertion is not a date');
  return ms;
}

/** `NotBefore`/`NotOnOrAfter` of one element, within the skew; returns NotOnOrAfter (ms) when it has one. */
function checkWindow(el: Element, e: Expected): number | null {
  const notBefore = instant(attr(el, 'NotBefore'));
  const notOnOrAfter = instant(attr(el, 'NotOnOrAfter'));
  const skew = `${e.skewMs / 60_000} minutes`;
  if (notBefore !== null && e.now + e.skewMs < notBefore) {
    refuse(`the assertion is not yet valid (NotBefore is more than ${skew} ahead)`);
  }
  if (notOnOrAfter !== null && e.now - e.skewMs >= notOnOrAfter) {
    refuse(`the assertion has expired (NotOnOrAfter is more than ${skew} past)`);
  }
  return notOnOrAfter;
}

/**
 * The bearer subject confirmation meant for this ACS (SAML profiles §4.1.4.2): one whose Recipient is the ACS URL;
 * its SubjectConfirmationData must carry NotOnOrAfter.
 */
function bearerConfirmation(assertion: Element, e: Expected): Element {
  const subject = onlyChild(assertion, NS.saml, 'Subject', 'the assertion has several subjects');
  if (!subject) refuse('the assertion has no subject');
  const data = children(subject, NS.saml, 'SubjectConfirmation')
    .filter((sc) => attr(sc, 'Method') === BEARER)
    .flatMap((sc) => children(sc, NS.saml, 'SubjectConfirmationData'));
  if (data.length === 0) refuse('the assertion has no bearer subject confirmation');
  const ours = data.find((d) => attr(d, 'Recipient') === e.acsUrl);
  if (!ours) refuse("the subject confirmation's Recipient is not this service provider's ACS URL");
  if (attr(ours, 'NotOnOrAfter') === null) refuse('the subject confirmation has no NotOnOrAfter');
  return ours;
}

/**
 * The checks of docs/sso.md that node-saml leaves to its caller, on the assertion as its signature covers it
 * (`verifiedXml`, never the posted document) and on the response around it: the assertion's Issuer — and the
 * response's, when it has one — is the identity provider's entity id; Destination is the ACS URL (it may be absent
 * when the response itself is unsigned: the binding requires it of signed messages only, and the signed Recipient
 * says the same); a bearer confirmation's Recipient is the ACS URL; NotBefore/NotOnOrAfter of the conditions and of
 * that confirmation hold on the platform's clock within the skew; InResponseTo is the confirmation's (signed), and
 * the response's, when it has one, agrees with it.
 */
export function checkAssertion(verifiedXml: string, envelope: ResponseEnvelope, e: Expected): AssertionFacts {
  const assertion = parseXml(verifiedXml, 'the signed assertion');
  if (assertion.namespaceURI !== NS.saml || assertion.localName !== 'Assertion') {
    refuse('the signed part holds no assertion');
  }
  const id = attr(assertion, 'ID');
  if (!id) refuse('the assertion has no ID');
  const issuer = textOf(onlyChild(assertion, NS.saml, 'Issuer', 'the assertion names several issuers'));
  if (!issuer || issuer !== e.idpEntityId) refuse("the assertion's Issuer is not the identity provider's entity id");
  if (envelope.issuer !== null && envelope.issuer !== e.idpEntityId) {
    refuse("the response's Issuer is not the identity provider's entity id");
  }
  if (envelope.destination === null ? envelope.signed.response : envelope.destination !== e.acsUrl) {
    refuse(
      envelope.destination === null
        ? 'the signed response has no Destination'
        : "the response's Destination is not this service provider's ACS URL",
    );
  }
  const confirmation = bearerConfirmation(assertion, e);
  const conditions = onlyChild(assertion, NS.saml, 'Conditions', 'the assertion has several conditions');
  const ends = [conditions && checkWindow(conditions, e), checkWindow(confirmation, e)];
  const inResponseTo = attr(confirmation, 'InResponseTo');
  if (envelope.inResponseTo !== null && envelope.inResponseTo !== inResponseTo) {
    refuse(
      inResponseTo === null
        ? "the response's InResponseTo is not in its signed assertion"
        : "the response's InResponseTo differs from its assertion's",
    );
  }
  // The confirmation's NotOnOrAfter is required, so there is an end; capped where dates end (year 275760).
  const until = Math.min(Math.min(...ends.filter((t): t is number => typeof t === 'number')) + e.skewMs, 8.64e15);
  return { id, inResponseTo, keepUntil: new Date(until).toISOString() };
}
