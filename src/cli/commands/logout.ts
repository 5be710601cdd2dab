import type { Command } from 'commander';
import { oauthTransport } from '../connection.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { done, type Output } from '../output/result.js';
import { warn } from '../output/terminal.js';
import { embeddedProfileMessage } from '../sign-in.js';
import { asLeaf } from '../verb.js';

/**
 * Ends the profile's session at the server (RFC 7009: the refresh token, and with it the session) and removes the
 * stored credential. When the server cannot be reached or refuses, the credential is still removed, with a warning.
 * Runs under the refresh lock, so that no other `plat` process rotates the token in between.
 */
async function logout(_o: Record<string, never>, ctx: Context): Promise<Output> {
  const r = await ctx.settings();
  if (r.kind === 'embedded') throw new UsageError(embeddedProfileMessage(r.profile, 'logout'));
  const account = r.account;
  const store = await ctx.credentials();
  const [{ withFileLock, refreshLockPath }, { revokeCredential }] = await Promise.all([
    import('../../auth/refresh-lock.js'),
    import('../../auth/revoke.js'),
  ]);
  return withFileLock(refreshLockPath(ctx.configDir(), account), async () => {
    const stored = await store.get(account);
    if (!stored) return done(`Not signed in: nothing is stored for profile "${account}".`);
    if (!stored.accessToken && !stored.refreshToken) {
      await store.delete(account);
      return done(
        `Removed the API key stored for profile "${account}". The key itself stays valid until revoked (plat keys revoke ID).`,
      );
    }
    let revoked = false;
    try {
      const settings = { globals: ctx.globals(), deps: ctx.deps, log: (line: string) => ctx.io.err(line) };
      revoked = await revokeCredential(stored, oauthTransport(await ctx.transport(), settings));
    } catch (err) {
      warn(ctx, `${(err as Error).message}; the session may stay active at the server until it expires`);
    }
    await store.delete(account);
    return done(
      revoked
        ? `Signed out of profile "${account}": the session is revoked and the tokens removed from ${store.location}.`
        : `Removed the tokens of profile "${account}" from ${store.location}.`,
    );
  });
}

/** `plat logout` */
export function register(cmd: Command, ctx: Context): void {
  asLeaf<Record<string, never>>(cmd, ctx, {
    summary: "End the profile's session at the server and remove its stored credential",
    examples: ['plat logout', 'plat --profile prod logout'],
    parse: () => ({}),
    run: logout,
  });
}
