import type { Profile } from '../config/config.js';
import type { Resolved } from '../config/resolve.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';

/** Where `plat login` signs in, and the credential store account the tokens go to. */
export interface SignInTarget {
  r: Resolved & { baseUrl: string };
  account: string;
  /** A profile `login` creates (`plat --profile NEW login --base-url URL`), saved once the sign-in succeeded. */
  newProfile?: Profile;
}

/** Why the embedded profile has nothing to sign in to, and how to sign in to a server instead. */
export function embeddedProfileMessage(profile: string, verb: 'login' | 'logout'): string {
  const what = verb === 'login' ? 'there is nothing to sign in to' : 'there is no sign-in to end';
  return (
    `profile "${profile}" is the embedded platform: commands use its local API key, so ${what}. ` +
    'To sign in to a server (for instance `plat serve` in another terminal), add a profile for it and sign in there: ' +
    'plat profiles add dev --base-url http://127.0.0.1:8080 --use && plat login ' +
    '(or in one step: plat --profile dev login --base-url http://127.0.0.1:8080)'
  );
}

/**
 * The remote endpoint and account of a sign-in. `--base-url` (or `PLAT_BASE_URL`) must be the profile's own URL —
 * the tokens are stored for the profile and only ever sent to its URL — except for a profile that does not exist
 * yet, which is created with that URL. The embedded profile has its local key and nothing to sign in to (exit 2).
 */
export async function signInTarget(ctx: Context): Promise<SignInTarget> {
  const { normalizeBaseUrl, pickProfile, resolveSettings } = await import('../config/resolve.js');
  const g = ctx.globals();
  const flags = { profile: g.profile, baseUrl: g.baseUrl, org: g.org, db: g.db, sandbox: g.sandbox };
  const config = await ctx.config();
  const [name] = pickProfile(flags, ctx.env as NodeJS.ProcessEnv, config);
  const url = g.baseUrl ?? ctx.env.PLAT_BASE_URL;
  let newProfile: Profile | undefined;
  if (!config.profiles[name] && name !== 'local' && url && !g.sandbox) {
    newProfile = { baseUrl: normalizeBaseUrl(url, g.baseUrl ? '--base-url' : 'PLAT_BASE_URL') };
    if (g.org) newProfile.org = g.org;
  }
  const profiles = newProfile ? { ...config.profiles, [name]: newProfile } : config.profiles;
  const r = resolveSettings({
    flags,
    env: ctx.env as NodeJS.ProcessEnv,
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
  return { r: r as SignInTarget['r'], account: r.account, newProfile };
}
