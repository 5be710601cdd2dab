import { type CacheProvider, SAML, type SamlConfig, ValidateInResponseTo } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import type { ResponseParams, SamlAuthnRequest, SamlIdp } from '../helpers/saml-idp.js';

// node-saml set up as the platform's service provider will be (docs/sso.md), to show what the test IdP's responses
// are worth without the platform: the good ones pass, each forged one fails its own check.

/** The SP the self-tests answer (it needs no listener: node-saml only reads these URLs). */
export const SP_ENTITY_ID = 'http://127.0.0.1:9/v2/sso/saml/org_0001';
export const ACS_URL = `${SP_ENTITY_ID}/acs`;
export const SKEW_MS = 3 * 60_000;

/** The signing certificates an IdP's metadata names (base64 bodies), read as the platform will read them. */
export function certificatesIn(metadata: string): string[] {
  const doc = new DOMParser().parseFromString(metadata, 'text/xml');
  const certs = Array.from(doc.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'X509Certificate'));
  return certs.map((c) => (c.textContent ?? '').replace(/\s/g, ''));
}

/** The requests an SP sent, as node-saml keeps them (the platform keeps them in its store). */
export function requestCache(): CacheProvider {
  const items = new Map<string, string>();
  return {
    saveAsync: async (key, value) => {
      if (items.has(key)) return null;
      items.set(key, value);
      return { value, createdAt: Date.now() };
    },
    getAsync: async (key) => items.get(key) ?? null,
    removeAsync: async (key) => {
      const value = key === null ? undefined : items.get(key);
      if (key !== null) items.delete(key);
      return value ?? null;
    },
  };
}

/** A node-saml SP trusting the IdP's metadata, with every default that matters set explicitly. */
export function nodeSamlSp(idp: SamlIdp, overrides: Partial<SamlConfig> = {}): SAML {
  return new SAML({
    entryPoint: idp.ssoUrl,
    issuer: SP_ENTITY_ID,
    audience: SP_ENTITY_ID,
    callbackUrl: ACS_URL,
    idpCert: certificatesIn(idp.metadata),
    // Defaults are 0 (no skew), `never` (no InResponseTo check) and SHA-1 (for what it signs): all set here.
    acceptedClockSkewMs: SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    cacheProvider: requestCache(),
    requestIdExpirationPeriodMs: 10 * 60_000,
    signatureAlgorithm: 'sha256',
    // Both default to true; the contract accepts a signature on either part, so each case says what it needs.
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    ...overrides,
  });
}

/** An SP-initiated sign-in up to the IdP: node-saml's redirect URL, followed over the socket; the request recorded. */
export async function requestThrough(
  sp: SAML,
  idp: SamlIdp,
  relayState = 'relay-1',
): Promise<{ request: SamlAuthnRequest; page: string }> {
  const url = await sp.getAuthorizeUrlAsync(relayState, undefined, {});
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`IdP answered ${res.status}: ${await res.text()}`);
  const request = idp.requests.at(-1);
  if (!request) throw new Error('the IdP recorded no request');
  return { request, page: await res.text() };
}

/** node-saml's verdict on a posted `SAMLResponse`: the profile, or the error's message. */
export async function verdict(
  sp: SAML,
  samlResponse: string,
): Promise<{ ok: true; profile: Record<string, unknown> } | { ok: false; error: string }> {
  try {
    const { profile } = await sp.validatePostResponseAsync({ SAMLResponse: samlResponse });
    if (!profile) return { ok: false, error: 'no profile' };
    return { ok: true, profile: profile as Record<string, unknown> };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** A response's knobs, or a function of now for those that name a time (read when the case runs, not when listed). */
export type Params = ResponseParams | (() => ResponseParams);

/** Issued `n` minutes from now (negative: ago). */
export const minutesFromNow = (n: number) => () => ({ issuedAt: new Date(Date.now() + n * 60_000) });

/** node-saml's verdict on a response built with `params`, to a request its SP has just sent through the IdP. */
export async function answerRequest(idp: SamlIdp, params: Params, overrides: Partial<SamlConfig> = {}) {
  const sp = nodeSamlSp(idp, overrides);
  const { request } = await requestThrough(sp, idp);
  return verdict(sp, idp.response({ request, ...(typeof params === 'function' ? params() : params) }));
}

/** What an SP that takes a signature on either part, or wants the response's, is told. */
export const WANT_EITHER_SIGNED = { wantAssertionsSigned: false, wantAuthnResponseSigned: false };
export const WANT_RESPONSE_SIGNED = { wantAssertionsSigned: false, wantAuthnResponseSigned: true };
