import { AMR_VALUES, type Amr } from '../../contract/mfa.js';
import type { SignInMethod } from '../../contract/sessions.js';

/** What a sign-in without a second factor says (RFC 8176): a password, or the organization's identity provider. */
export function methodAmr(method: SignInMethod): Amr[] {
  return method === 'saml' || method === 'oidc' ? ['sso'] : ['pwd'];
}

/** The `amr` column's text: the values space-separated, in their registry order, each once. */
export function amrText(amr: readonly Amr[]): string {
  return AMR_VALUES.filter((v) => amr.includes(v)).join(' ');
}

/** A stored `amr`, or, for a row from before it was recorded (NULL), what its method says. */
export function storedAmr(text: string | null, method: SignInMethod): Amr[] {
  if (text === null) return methodAmr(method);
  const known = new Set<string>(AMR_VALUES);
  return text.split(' ').filter((v): v is Amr => known.has(v));
}

/** `amr` with `more` added, and `mfa` once it holds more than one kind of factor. */
export function withFactor(amr: readonly Amr[], more: readonly Amr[]): Amr[] {
  const all = new Set<Amr>([...amr, ...more]);
  const kinds = ['pwd', 'otp', 'hwk', 'swk', 'user', 'sso'].filter((k) => all.has(k as Amr));
  if (kinds.length > 1) all.add('mfa');
  return AMR_VALUES.filter((v) => all.has(v));
}
