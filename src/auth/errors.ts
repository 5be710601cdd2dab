/** The kinds of sign-in failure, named as the CLI's exit-code table names them (src/cli/errors.ts). */
export type AuthErrorKind = 'unauthenticated' | 'network' | 'rate_limited' | 'invalid' | 'usage' | 'unexpected';

/**
 * A failure of signing in, refreshing or signing out. The message never quotes a token, a code or a verifier.
 * The CLI recognises it by name and maps `kind` to an exit code (refresh failed → 3, unreachable → 9…).
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
