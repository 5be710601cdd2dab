import type { Profile } from '@node-saml/node-saml';
import type { BaseCtx } from '../context.js';
import type { IdpProfile } from '../operations/sso-provision.js';
import type { StoredSso } from '../store/sso.js';
import { ssoAddresses } from './addresses.js';
import { SSO_CLOCK_SKEW_MS } from './clock-skew.js';
import { responseValidator } from './saml.js';
import { type AssertionFacts, checkAssertion } from './saml-assertion.js';
import { decodeSamlResponse, readEnvelope } from './saml-response.js';
import { refuse } from './saml-xml.js';

/** A response that passed every check of docs/sso.md but the request's and the replay's (they write: saml-acs.ts). */
export interface VerifiedResponse {
  profile: IdpProfile;
  assertion: AssertionFacts;
}

const CERTS = "with the identity provider's certificates";

/**
 * node-saml's (and xml-crypto's) errors, by message, as the check the page names, first match wins. Their messages
 * can quote the response (an audience received, a digest), so they are never shown.
 */
const NODE_SAML_ERRORS: [RegExp, string][] = [
  [/^Invalid document signature/, `the response's signature does not verify ${CERTS}`],
  [
    /Referenced node does not refer|ID cannot refer to more than one|Too many signatures|multiple elements with the same|multiple Signature elements/,
    'a signature does not cover the element that carries it (signature wrapping)',
  ],
  [/^Invalid signature/, `the assertion's signature does not verify ${CERTS}`],
  [
    /^(could not|Could not|no signed info|Canonical signed info|Missing canonicalizationAlgorithm|signature reference uri|ref URI|Invalid signature, too many transforms)|is not supported$/,
    'a signature is malformed or uses an algorithm that is not supported',
  ],
  [/audience|AudienceRestriction/i, "the assertion's Audience is not this service provider's entity id"],
  // node-saml reads NotOnOrAfter (of the conditions, of a confirmation) and IssueInstant even with its time checks off.
  [/^Error parsing /, 'a time of the assertion is missing or not a date'],
];

/** node-saml's refusal as a check; anything else it throws on a garbled response "could not be verified". */
function nodeSamlRefusal(err: unknown): never {
  const message = err instanceof Error ? err.message : '';
  refuse(NODE_SAML_ERRORS.find(([pattern]) => pattern.test(message))?.[1] ?? 'the response could not be verified');
}

/** Attribute values as lists of strings; values that are XML rather than text are left out. */
function attributesOf(profile: Profile): Record<string, string[]> {
  // No prototype: a mapping naming `constructor` finds nothing rather than Object's.
  const out: Record<string, string[]> = Object.create(null);
  const raw = profile.attributes;
  if (raw === null || typeof raw !== 'object') return out;
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    if (values.length > 0) out[name] = values;
  }
  return out;
}

/**
 * Checks a posted `SAMLResponse` against the organization's identity provider (docs/sso.md), in this order: its
 * structure (saml-response.ts); then node-saml, which verifies each signature the response carries — the response's
 * and the assertion's, both when both are signed — against every certificate of the metadata (rotation), reads only
 * what a signature covers (no wrapping), and checks the Audience; then the rest on the assertion as signed
 * (saml-assertion.ts). The profile comes from the signed assertion: NameID as the subject, every attribute.
 */
export async function verifyResponse(ctx: BaseCtx, config: StoredSso, samlResponse: string): Promise<VerifiedResponse> {
  const { xml, base64 } = decodeSamlResponse(samlResponse);
  const envelope = readEnvelope(xml);
  const validator = responseValidator(ctx, config, envelope.signed);
  let profile: Profile | null;
  try {
    ({ profile } = await validator.validatePostResponseAsync({ SAMLResponse: base64 }));
  } catch (err) {
    return nodeSamlRefusal(err);
  }
  if (!profile) refuse('the response carries no assertion');
  const { acsUrl } = ssoAddresses(ctx.publicUrl, config.organizationId);
  const signedXml = profile.getAssertionXml?.();
  if (!signedXml) refuse('the response could not be verified');
  const assertion = checkAssertion(signedXml, envelope, {
    idpEntityId: config.idpEntityId ?? '',
    acsUrl,
    now: ctx.clock().getTime(),
    skewMs: SSO_CLOCK_SKEW_MS,
  });
  if (typeof profile.nameID !== 'string' || profile.nameID === '') refuse('the assertion has no NameID');
  return { profile: { subject: profile.nameID, attributes: attributesOf(profile) }, assertion };
}
