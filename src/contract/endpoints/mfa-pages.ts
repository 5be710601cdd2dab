import * as z from 'zod';
import { lazySchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import { passkeyFieldSchema } from '../oauth.js';
import { page } from './answers.js';

const tag = 'auth';
const access = 'public' as const;

/** A script of the sign-in pages: JavaScript, kept a few minutes. */
const script = (description: string) => ({
  200: { description, body: 'javascript' as const, headers: ['Cache-Control' as const] },
});

/** What the factors page posts back: a step of the sign-in, then the enrolment step (docs/mfa.md). */
export const mfaFormSchema = lazySchema(() =>
  z.looseObject({
    csrf: z.string().meta({ description: 'The token of the page, matching the `plat_csrf` cookie.' }),
    email: z.string().optional(),
    password: z.string().optional(),
    passkey: passkeyFieldSchema,
    ticket: z.string().optional().meta({ description: 'A step after the sign-in: how far it got.' }),
    code: z.string().optional().meta({ description: 'The second-factor or enrolment step: a TOTP or recovery code.' }),
    factor_id: z.string().optional().meta({ description: 'The enrolment step: the factor being set up.' }),
  }),
).meta({ id: 'MfaForm' });

/**
 * The sign-in pages' passkeys (docs/mfa.md): the scripts of their passkey buttons, and the factors page where a person
 * adds a passkey or an authenticator app of their own accord.
 */
export const mfaPages = {
  passkeyScript: endpoint({
    method: 'GET',
    path: '/auth/assets/passkeys.js',
    operationId: 'getPasskeyScript',
    summary: "The sign-in pages' script for their passkey buttons (WebAuthn through @simplewebauthn/browser)",
    tag,
    access,
    answers: script('The script'),
  }),
  webauthnLibrary: endpoint({
    method: 'GET',
    path: '/auth/assets/simplewebauthn-browser.js',
    operationId: 'getWebauthnBrowserLibrary',
    summary: 'The WebAuthn library the passkey script calls: @simplewebauthn/browser, as its package ships it',
    tag,
    access,
    answers: script('The library (it defines `SimpleWebAuthnBrowser`)'),
  }),
  mfaPage: endpoint({
    method: 'GET',
    path: '/auth/mfa',
    operationId: 'mfaPage',
    summary: 'The HTML page where a person signs in to add a passkey or an authenticator app to their account',
    description:
      'Passkeys are offered where browsers can use them: a public URL with a host name over HTTPS, or `localhost`.',
    tag,
    access,
    answers: { 200: page('The sign-in form') },
  }),
  mfaPageSubmit: endpoint({
    method: 'POST',
    path: '/auth/mfa',
    operationId: 'mfaPageSubmit',
    summary: 'The factors page posted back: a step of the sign-in, then the new factor',
    tag,
    access,
    form: mfaFormSchema,
    answers: {
      200: page('The next step (the second factor, the new factor, its recovery codes), or the factor added'),
      400: page('A missing field or an expired step'),
      401: page('A wrong e-mail or password, a wrong code, or a passkey that did not verify'),
      403: page('A CSRF token that does not match, or a person whose single sign-on forbids a password'),
      429: {
        ...page('Too many failed sign-ins from the address or for the account, or wrong codes for the user', [
          'Retry-After',
        ]),
        alsoEnvelope: true,
      },
    },
  }),
} as const;
