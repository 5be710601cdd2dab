import type { CredentialStore, StoredCredential } from '../auth/credential-store.js';
import type { Profile } from '../config/config.js';
import type { Resolved } from '../config/resolve.js';

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

const apiKey = (key: string) => ({ 'X-API-Key': key });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Headers for a stored credential: its API key, else its access token. */
export function storedHeaders(c: StoredCredential): Record<string, string> | undefined {
  if (c.apiKey) return apiKey(c.apiKey);
  if (c.accessToken) return bearer(c.accessToken);
  return undefined;
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
    return { source: 'flag', type: 'api key', why: 'from --api-key-stdin', headers: apiKey(await input.stdinKey()) };
  }
  if (env.PLAT_API_KEY) {
    const why = env.PLAT_TOKEN ? 'from PLAT_API_KEY (preferred over PLAT_TOKEN)' : 'from PLAT_API_KEY';
    return { source: 'env', type: 'api key', why, headers: apiKey(env.PLAT_API_KEY) };
  }
  if (env.PLAT_TOKEN)
    return { source: 'env', type: 'access token', why: 'from PLAT_TOKEN', headers: bearer(env.PLAT_TOKEN) };
  if (!input.storeApplies) return undefined;
  const store = await input.store();
  const stored = await store.get(input.account);
  const headers = stored && storedHeaders(stored);
  if (!stored || !headers) return undefined;
  return {
    source: 'store',
    type: stored.apiKey ? 'api key' : 'access token',
    why: `stored for "${input.account}" in ${store.location}`,
    headers,
    stored: { account: input.account, credential: stored },
  };
}

/**
 * Whether the profile's stored credential may be sent to the resolved endpoint: always for the embedded platform (a
 * local file), and for a remote one only when the profile itself names that URL, so that `--base-url` or
 * `PLAT_BASE_URL` can never carry a stored secret to another server.
 */
export function storeApplies(r: Resolved, profile: Profile | undefined, normalize: (url: string) => string): boolean {
  if (r.kind === 'embedded') return true;
  const own = [profile?.baseUrl, profile?.sandboxBaseUrl].filter((u): u is string => !!u);
  return own.some((u) => {
    try {
      return normalize(u) === r.baseUrl;
    } catch {
      return false;
    }
  });
}
