/** Length bounds in characters: NIST SP 800-63B-4 asks 15 for a password that is the only factor. */
export const PASSWORD_MIN = 15;
export const PASSWORD_MAX = 256;

/** A password as it is measured and hashed: NFKC, so that one typed on another keyboard or system still matches. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * Why `password` is not acceptable as a new password, or undefined when it is: the rule the sign-in pages apply and
 * `plat local init` checks before it asks anything of the platform.
 */
export function passwordProblem(password: string): string | undefined {
  const length = [...normalizePassword(password)].length;
  if (length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  return undefined;
}
