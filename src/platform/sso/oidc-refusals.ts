import type { Refusal } from '../operations/sso-provision.js';

/** What each ID-token claim that failed its comparison or its time check means, said to the person and the owner. */
const CLAIMS: Record<string, string> = {
  nonce: "the ID token's nonce is not the one this sign-in sent (a replayed or injected token)",
  iss: 'the ID token was issued by another issuer than the configured one',
  aud: 'the ID token is meant for another client (audience)',
  azp: 'the ID token was issued to another client (azp)',
  exp: 'the ID token has expired',
  nbf: 'the ID token is not valid yet (nbf)',
  iat: 'the ID token was issued too long ago (iat)',
  auth_time: 'the sign-in at the identity provider is too old (auth_time)',
  c_hash: 'the ID token does not belong to this code (c_hash)',
  s_hash: 'the ID token does not belong to this state (s_hash)',
};

/** openid-client's (oauth4webapi's) own words for the other refusals, in ours. */
const MESSAGES: [RegExp, string | ((m: RegExpExecArray) => string)][] = [
  [
    /^JWT signature verification failed$/,
    "the ID token's signature does not verify with the identity provider's keys (JWKS)",
  ],
  [/no applicable keys found/, "the ID token is signed by a key the identity provider's JWKS does not hold"],
  [/multiple applicable keys found/, "the ID token names no key (kid) and the identity provider's JWKS holds several"],
  [/^JWT "(\w+)" \(.*\) claim missing$/, (m) => `the ID token carries no ${m[1]} claim`],
  [
    /^unexpected "iss" \(issuer\) response parameter value$/,
    'the answer comes from another identity provider (iss: a mix-up)',
  ],
  [
    /^response parameter "iss" \(issuer\) missing$/,
    'the answer names no issuer (iss), which the identity provider promises',
  ],
  [/^unexpected "state" response parameter value$/, 'the state does not match the sign-in request'],
  [/"id_token"|does not contain an ID Token/, 'the identity provider sent no ID token'],
];

const shown = (text: unknown) =>
  typeof text === 'string' && /^[\w.-]{1,64}$/.test(text) ? text : 'an error the platform does not know';

/** The library's message, kept only when it is plain text of a reasonable length (it never holds a token). */
const plain = (text: unknown) =>
  typeof text === 'string' && /^[\x20-\x7e]{1,200}$/.test(text) ? text : 'an unexpected answer';

interface Failure {
  name?: string;
  message?: string;
  code?: string;
  error?: string;
  status?: number;
  cause?: Failure & { claim?: string; alg?: string };
}

/**
 * The check a sign-in failed, from what openid-client threw when it refused the identity provider's answer: each
 * refusal of the matrix (nonce, issuer, audience, expiry, signature, mix-up, state…) named in words, never with the
 * token or the provider's text (a provider's error code is shown only when it is one). Always 400: the answer was bad.
 */
export function refusalOf(err: unknown): Refusal {
  const fail = (check: string): Refusal => ({ status: 400, check });
  const e = (err ?? {}) as Failure;
  for (let at: Failure | undefined = e, depth = 0; at && depth < 4; at = at.cause, depth++) {
    // The bounded fetch's own words (fetch.ts): the endpoint that did not answer, and how.
    if (at.name === 'FetchError' && at.message) return fail(at.message);
  }
  if (e.name === 'ResponseBodyError') {
    if (e.error === 'invalid_client') {
      return fail("the identity provider refused the platform's client id or secret (invalid_client)");
    }
    if (e.error === 'invalid_grant') {
      return fail(
        'the identity provider refused the code (invalid_grant): used already, expired or not for this sign-in',
      );
    }
    return fail(`the identity provider's token endpoint refused the code (${shown(e.error)})`);
  }
  if (e.name === 'AuthorizationResponseError') return fail(`the identity provider answered ${shown(e.error)}`);
  const detail = e.cause;
  const claim = detail?.cause?.claim;
  if (
    claim !== undefined &&
    (e.code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' || e.code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED')
  ) {
    return fail(CLAIMS[claim] ?? `the ID token's ${shown(claim)} claim does not hold`);
  }
  switch (e.code) {
    case 'OAUTH_RESPONSE_IS_NOT_CONFORM':
      return fail(
        `the identity provider answered ${typeof detail?.status === 'number' ? detail.status : 'unexpectedly'}`,
      );
    case 'OAUTH_RESPONSE_IS_NOT_JSON':
      return fail("the identity provider's answer is not JSON");
    case 'OAUTH_TIMEOUT':
    case 'OAUTH_ABORT':
      return fail('the identity provider did not answer in time');
  }
  if (e.message === 'unsupported operation' && detail?.cause?.alg !== undefined) {
    return fail(
      `the ID token is signed with ${shown(detail.cause.alg)}, not with a key of the identity provider's JWKS`,
    );
  }
  const message = detail?.message ?? e.message;
  for (const [pattern, check] of MESSAGES) {
    const m = typeof message === 'string' ? pattern.exec(message) : null;
    if (m) return fail(typeof check === 'string' ? check : check(m));
  }
  return fail(`the identity provider's answer was refused: ${plain(message)}`);
}
