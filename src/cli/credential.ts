import type { CredentialStore, StoredCredential } from '../auth/credential-store.js';
import type { Profile } from '../config/config.js';
import type { Resolved } from '../config/resolve.js';
import { NotAuthenticatedError } from './errors.js';

/** The credential a command acts with, where it came from (for `auth status`), and the headers it becomes. */
export interface ActiveCredential {
  source: 'flag' | 'env' | 'store';
  type: 'api key' | 'access token';
  /** Why this one: "from --api-key-stdin", "from PLAT_API_KEY", "stored for profile "local" in …". */
  why: string;
  headers: Record<string, string>;
  /** A stored credential: its account and what the store holds (tokens of `plat login` refresh through it). */
  stored?: { account: string; credential: StoredCredential };
}

/** Whether a credential is the token set of `plat login` (refreshable), rather than an API key or a bare token. */
export function isSignedIn(c: ActiveCredential | undefined): c is ActiveCredential & { stored: { account: string } } {
  return c?.source === 'store' && c.type === 'access token' && c.stored !== undefined;
}

/** Where a credential came from ("from PLAT_API_KEY"), and what to do when it cannot be used. */
interface Origin {
  from: string;
  fix: string;
}

const FROM_STDIN: Origin = { from: 'from --api-key-stdin', fix: 'paste the whole key' };
const FROM_API_KEY_ENV: Origin = { from: 'from PLAT_API_KEY', fix: 'paste the whole key' };
const FROM_TOKEN_ENV: Origin = { from: 'from PLAT_TOKEN', fix: 'paste the whole token' };

/** Names of the characters a pasted credential most often carries by mistake. */
const CHARACTER_NAMES: Record<string, string> = { '\n': 'a line break', '\r': 'a carriage return', '\t': 'a tab' };

/**
 * The first character of a credential that an HTTP header cannot carry (RFC 9110: visible US-ASCII and spaces), told
 * without the credential itself: `"…" (U+2026)`, `a line break (U+000A)`; undefined when there is none.
 */
function unsendableCharacter(value: string): string | undefined {
  if (/^[\x20-\x7e]*$/.test(value)) return undefined;
  const c = [...value].find((ch) => ch < '\x20' || ch > '\x7e') as string;
  const code = `U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
  if (CHARACTER_NAMES[c]) return `${CHARACTER_NAMES[c]} (${code})`;
  return /[\p{L}\p{N}\p{P}\p{S}]/u.test(c) ? `"${c}" (${code})` : `an invisible character (${code})`;
}

/**
 * The credential as a header carries it — without the whitespace around it, which the Fetch standard drops too (a
 * key echoed with its newline works) — or, when it holds a character no header can carry (an ellipsis pasted in
 * place of its end, a line break inside), a refusal that names the character and where the credential came from,
 * never the secret: exit 3, as the API's `401` for a mangled key would be.
 */
function sendable(value: string, what: 'API key' | 'access token', origin: Origin): string {
  const trimmed = value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  const bad = unsendableCharacter(trimmed);
  if (bad === undefined) return trimmed;
  throw new NotAuthenticatedError(
    `the ${what} ${origin.from} contains ${bad}, which cannot be sent in an HTTP header: ${origin.fix}`,
  );
}

const apiKey = (key: string, origin: Origin) => ({ 'X-API-Key': sendable(key, 'API key', origin) });
const bearer = (token: string, origin: Origin) => ({
  Authorization: `Bearer ${sendable(token, 'access token', origin)}`,
});

/** Headers for a stored credential (its API key, else its access token); `where` names the account and store. */
export function storedHeaders(c: StoredCredential, where = 'stored'): Record<string, string> | undefined {
  if (c.apiKey) return apiKey(c.apiKey, { from: where, fix: 'store the whole key again' });
  if (c.accessToken) return bearer(c.accessToken, { from: where, fix: 'sign in again with plat login' });
  return undefined;
}

/**
 * The credential store as commands write to it: an API key that no header could carry (`profiles add
 * --api-key-stdin` given a mangled one) is refused before anything is stored.
 */
export function refusingUnsendable(store: CredentialStore): CredentialStore {
  return {
    get kind() {
      return store.kind;
    },
    get location() {
      return store.location;
    },
    get: (profile) => store.get(profile),
    set: async (profile, credential) => {
      if (credential.apiKey) {
        sendable(credential.apiKey, 'API key', { from: `to store for "${profile}"`, fix: 'paste the whole key' });
      }
      await store.set(profile, credential);
    },
    delete: (profile) => store.delete(profile),
  };
}

/**
 * Picks the credential by precedence: `--api-key-stdin` > `PLAT_API_KEY` > `PLAT_TOKEN` > the profile's stored
 * credential. An API key wins over a token when both are in the environment (the API refuses requests with both).
 */
export async function findCredential(input: {
  stdinKey?: () => Promise<string>;
  env: Record<string, string | undefined>;
  account: string;
  /** False when the endpoint is not the profile's own (--base-url, PLAT_BASE_URL): its stored secret stays home. */
  storeApplies: boolean;
  store: () => Promise<CredentialStore>;
}): Promise<ActiveCredential | undefined> {
  const { env } = input;
  if (input.stdinKey) {
    const headers = apiKey(await input.stdinKey(), FROM_STDIN);
    return { source: 'flag', type: 'api key', why: FROM_STDIN.from, headers };
  }
  if (env.PLAT_API_KEY) {
    const why = env.PLAT_TOKEN ? 'from PLAT_API_KEY (preferred over PLAT_TOKEN)' : 'from PLAT_API_KEY';
    return { source: 'env', type: 'api key', why, headers: apiKey(env.PLAT_API_KEY, FROM_API_KEY_ENV) };
  }
  if (env.PLAT_TOKEN) {
    return {
      source: 'env',
      type: 'access token',
      why: FROM_TOKEN_ENV.from,
      headers: bearer(env.PLAT_TOKEN, FROM_TOKEN_ENV),
    };
  }
  if (!input.storeApplies) return undefined;
  const store = await input.store();
  const stored = await store.get(input.account);
  const why = `stored for "${input.account}" in ${store.location}`;
  const headers = stored && storedHeaders(stored, why);
  if (!stored || !headers) return undefined;
  return {
    source: 'store',
    type: stored.apiKey ? 'api key' : 'access token',
    why,
    headers,
    stored: { account: input.account, credential: stored },
  };
}

/**
 * Whether the profile's stored credential may be sent to the resolved endpoint: always for the embedded platform (a
 * local file), and for a remote one only when the profile itself names that URL (`namesUrl`: config/resolve.ts's
 * `profileNamesUrl`, loaded on demand), so that `--base-url` or `PLAT_BASE_URL` can never carry a stored secret to
 * another server.
 */
export function storeApplies(
  r: Resolved,
  profile: Profile | undefined,
  namesUrl: (profile: Profile, url: string) => boolean,
): boolean {
  return r.kind === 'embedded' || namesUrl(profile ?? {}, r.baseUrl as string);
}
