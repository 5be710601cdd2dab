import { expect } from 'vitest';
import { REDIRECT } from '../platform/auth/helpers.js';
import type { ResponseParams } from './saml-idp.js';
import { backLink, pageMessage, type SamlPlatform } from './sso-saml.js';

// What every refused SAML response must leave behind: its page, its event, and nothing else.

/** The back link a failure page offers the CLI of a `plat login` (authorizeContinuation's state). */
export function accessDenied(check: string, state = 'st-saml'): string {
  const url = new URL(REDIRECT);
  url.searchParams.append('error', 'access_denied');
  url.searchParams.append('error_description', check);
  url.searchParams.append('state', state);
  url.searchParams.append('iss', 'http://plat.test/v2/auth');
  return url.href;
}

/**
 * Posts `fields` to the ACS and checks the refusal whole: the status and the page's message naming `check`, nothing
 * created (no account, membership, identity, code, session), one `sso.failed` event with exactly the reason, no
 * assertion content in the page, and — when `back` — the way back to the CLI with `access_denied`.
 */
export async function expectRefused(
  s: SamlPlatform,
  fields: Record<string, string | undefined>,
  status: 400 | 403,
  check: string,
  opts: { back?: boolean } = {},
) {
  const before = await s.created();
  const failedBefore = (await s.events('sso.failed')).length;
  const r = await s.postAcs(fields);
  expect({ status: r.status, message: pageMessage(r.text) }).toEqual({
    status,
    message: `Signing in through your organization's identity provider failed: ${check}.`,
  });
  expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(r.text).toContain('<p class="note">Request req_');
  expect(r.text).not.toMatch(/idp-user|@acme\.test|@elsewhere|mallory|PHNhbWxw|<saml/);
  expect(backLink(r.text)).toBe(opts.back ? accessDenied(check) : undefined);
  expect(await s.created()).toEqual(before);
  const failed = (await s.events('sso.failed')).slice(failedBefore);
  expect(failed.map((e) => [e.actor, e.data])).toEqual([
    [
      { type: 'system', id: 'sso:saml' },
      { protocol: 'saml', status, reason: check },
    ],
  ]);
  return r;
}

/**
 * Answers a fresh SP-initiated sign-in with a response built from `params` and expects its refusal, with the way
 * back; the sign-in it was for is over (its request used up).
 */
export async function refusedAnswer(
  s: SamlPlatform,
  params: Omit<ResponseParams, 'request'>,
  status: 400 | 403,
  check: string,
) {
  const { sent, request } = await s.signIn();
  const samlResponse = s.idp.response({ request: sent, ...params });
  await expectRefused(s, { SAMLResponse: samlResponse, RelayState: request.id }, status, check, { back: true });
  expect((await s.base.stores.ssoSignIn.requestState(request.id))?.usedAt).not.toBeNull();
}
