import type { Config, Profile } from '../config/config.js';
import type { Resolved } from '../config/resolve.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';

/** Where `plat login` signs in, and the credential store account the tokens go to. */
export interface SignInTarget {
  r: Resolved & { baseUrl: string };
  account: string;
  /** A profile `login` creates (`plat --profile NEW login --base-url URL`), saved once the sign-in succeeded. */
  newProfile?: Profile;
  /**
   * Set when `login --base-url URL` ran on an embedded profile, which has nothing to sign in to: the sign-in went to
   * the server's own profile instead, an existing one for that URL (`reused`) or `newProfile`.
   */
  instead?: ServerProfile;
}

/** The server profile an embedded profile's `login --base-url` signed in under, and whether it became current. */
export interface ServerProfile {
  /** The embedded profile the command was run on. */
  embedded: string;
  /** An existing profile for the URL was used (else one was made). */
  reused: boolean;
  /** It becomes the current profile: the embedded one was in use by default, not named by --profile/PLAT_PROFILE. */
  makeCurrent: boolean;
  /** It is the current profile already (the embedded one was named with --profile or PLAT_PROFILE). */
  isCurrent: boolean;
  /** Why the embedded profile was the one in use ("from --profile", "current profile in config.json"…). */
  why: string;
}

/** Why the embedded profile has nothing to sign in to, and how to sign in to a server instead. */
export function embeddedProfileMessage(profile: string, verb: 'login' | 'logout'): string {
  const what = verb === 'login' ? 'there is nothing to sign in to' : 'there is no sign-in to end';
  return (
    `profile "${profile}" is the embedded platform: commands use its local API key, so ${what}. ` +
    'To sign in to a server (for instance `plat serve` in another terminal), give its URL: ' +
    'plat login --base-url http://127.0.0.1:8080'
  );
}

/** The embedded profile's `login --sandbox --base-url URL`: which of a server's two instances URL is, is unknown. */
const SANDBOX_OF_EMBEDDED =
  'the embedded profile has no remote sandbox to sign in to; add a profile with both URLs, then sign in to its ' +
  'sandbox: plat profiles add NAME --base-url URL --sandbox-base-url SANDBOX_URL && plat --profile NAME --sandbox login';

/**
 * The remote endpoint and account of a sign-in. `--base-url` (or `PLAT_BASE_URL`) must be the profile's own URL —
 * the tokens are stored for the profile and only ever sent to its URL — except for a profile that does not exist
 * yet, which is created with that URL, and for an embedded profile (it has its local key and nothing to sign in
 * to), where it names the server to sign in to under a profile of its own: the existing profile for that URL, else
 * a new one named after it. Without a URL the embedded profile is a usage error (2).
 */
export async function signInTarget(ctx: Context): Promise<SignInTarget> {
  const { DEFAULT_PROFILE, normalizeBaseUrl, pickProfile, resolveSettings } = await import('../config/resolve.js');
  const g = ctx.globals();
  const env = ctx.deps.env as NodeJS.ProcessEnv;
  const flags = {
    profile: g.profile,
    baseUrl: g.baseUrl,
    org: g.org,
    db: g.db,
    databaseUrl: g.databaseUrl,
    sandbox: g.sandbox,
  };
  const config = (await ctx.config()).current;
  const [picked, why] = pickProfile(flags, env, config);
  // A flag wins over the environment: --db (or --database-url) asks for the embedded platform, so PLAT_BASE_URL does
  // not apply.
  const url = g.baseUrl ?? (g.db || g.databaseUrl !== undefined ? undefined : env.PLAT_BASE_URL);
  const urlWhy = g.baseUrl ? '--base-url' : 'PLAT_BASE_URL';
  const stored = config.profiles[picked];
  const embedded = (stored || picked === DEFAULT_PROFILE) && !stored?.baseUrl && !stored?.sandboxBaseUrl;
  let name = picked;
  let newProfile: Profile | undefined;
  let instead: ServerProfile | undefined;
  if (embedded && url) {
    if (g.sandbox) throw new UsageError(SANDBOX_OF_EMBEDDED);
    ({ name, newProfile } = await serverProfile(config, normalizeBaseUrl(url, urlWhy), g.org));
    const makeCurrent = !(g.profile || env.PLAT_PROFILE);
    instead = { embedded: picked, reused: !newProfile, makeCurrent, isCurrent: config.currentProfile === name, why };
  } else if (!stored && picked !== DEFAULT_PROFILE && url && !g.sandbox) {
    newProfile = { baseUrl: normalizeBaseUrl(url, urlWhy) };
    if (g.org) newProfile.org = g.org;
  }
  const profiles = newProfile ? { ...config.profiles, [name]: newProfile } : config.profiles;
  const r = resolveSettings({
    flags: instead ? { ...flags, profile: name } : flags,
    env,
    config: { ...config, profiles },
    dataDir: ctx.dataDir(),
    cwd: ctx.deps.cwd,
  });
  const own = profiles[name];
  if (r.kind !== 'remote' || !r.baseUrl || (!own?.baseUrl && !own?.sandboxBaseUrl)) {
    throw new UsageError(embeddedProfileMessage(name, 'login'));
  }
  const ownUrls = [own.baseUrl, own.sandboxBaseUrl].filter((u): u is string => !!u).map((u) => normalizeBaseUrl(u));
  if (!ownUrls.includes(r.baseUrl)) {
    throw new UsageError(
      `profile "${name}" is for ${own.baseUrl}, but the endpoint is ${r.baseUrl} (${r.why.endpoint}); tokens are ` +
        `stored per profile and only sent to its URL. Sign in to that server under a profile of its own: ` +
        `plat --profile NAME login --base-url ${r.baseUrl}`,
    );
  }
  // Not --profile: the server's profile was chosen for the URL, in place of the embedded one.
  const target = instead ? { ...r, why: { ...r.why, profile: `the profile for ${r.baseUrl}` } } : r;
  return { r: target as SignInTarget['r'], account: r.account, newProfile, instead };
}

/**
 * The profile a sign-in to `baseUrl` (normalized) goes under: the first whose base URL is the same, else a new one
 * named after the URL (`127.0.0.1-8081`, made unique), with `org` if given.
 */
async function serverProfile(
  config: Config,
  baseUrl: string,
  org: string | undefined,
): Promise<{ name: string; newProfile?: Profile }> {
  const { DEFAULT_PROFILE, normalizeBaseUrl } = await import('../config/resolve.js');
  const same = (stored: string) => {
    try {
      return normalizeBaseUrl(stored) === baseUrl;
    } catch {
      return false; // a hand-edited URL that does not parse is no match
    }
  };
  const found = Object.entries(config.profiles).find(([, p]) => p.baseUrl !== undefined && same(p.baseUrl));
  if (found) return { name: found[0] };
  const { profileNameFor } = await import('../config/profile-name.js');
  const name = profileNameFor(baseUrl, (n) => n in config.profiles || n === DEFAULT_PROFILE);
  return { name, newProfile: org ? { baseUrl, org } : { baseUrl } };
}
