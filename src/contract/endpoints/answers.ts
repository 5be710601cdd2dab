import type { Answer, AnswerHeader } from '../endpoint.js';

/** Pieces of the public endpoints' declared answers (`Endpoint.answers`). */

/** An HTML page of the sign-in flow (always with its Content-Security-Policy; a form sets the CSRF cookie). */
export const page = (description: string, headers: readonly AnswerHeader[] = []): Answer => ({
  description,
  body: 'html',
  headers: ['Content-Security-Policy', 'Cache-Control', 'Set-Cookie', ...headers],
});

/** A `303 See Other` on to the OAuth client's redirect URI (with `code` or `error`) or to an identity provider. */
export const onward = (description: string): Answer => ({ description, headers: ['Location', 'Cache-Control'] });

/** The RFC 6749 §5.2 error form, never cached. */
export const oauthError = (description: string, headers: readonly AnswerHeader[] = []): Answer => ({
  description,
  body: 'oauth-error',
  headers: ['Cache-Control', ...headers],
});

/** The platform's error envelope. */
export const envelope = (description: string, headers: readonly AnswerHeader[] = []): Answer => ({
  description,
  body: 'error',
  headers,
});
