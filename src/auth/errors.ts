import type { FailureKind } from '../contract/errors.js';

/** The kinds of sign-in failure (failure kinds, which the CLI maps to exit codes: src/cli/errors.ts). */
export type AuthErrorKind = Extract<
  FailureKind,
  'unauthenticated' | 'network' | 'rate_limited' | 'invalid' | 'usage' | 'unexpected'
>;

/**
 * A failure of signing in, refreshing or signing out. The message never quotes a token, a code or a verifier.
 * The CLI maps its `kind` to an exit code (refresh failed → 3, unreachable → 9…).
 */
export class AuthError extends Error {
  constructor(
    readonly kind: AuthErrorKind,
    message: string,
    opts: { cause?: unknown } = {},
  ) {
    super(message, opts);
    this.name = 'AuthError';
  }
}
