import type { CredentialStore, StoredCredential } from './credential-types.js';
import { AuthError } from './errors.js';
import { CLI_CLIENT_ID, discover, type OAuthTransport, oauthFailure } from './oidc.js';
import { type LockOptions, withFileLock } from './refresh-lock.js';
import { expiresSoon, storedTokens } from './tokens.js';

/** What a token session needs: where the credential lives, the lock that guards it, and how to reach the issuer. */
export interface TokenSessionOptions {
  store: CredentialStore;
  /** The credential store account (`<profile>` or `<profile>:sandbox`). */
  account: string;
  /** The credential as read when the command started. */
  initial: StoredCredential;
  /** The file lock shared by every `plat` process refreshing this account. */
  lockFile: string;
  transport: OAuthTransport;
  clock: () => Date;
  lock?: LockOptions;
}

const SIGN_IN_AGAIN = 'sign in again with plat login';

/**
 * The access token of a signed-in profile, kept fresh: refreshed when less than a minute remains and once after a
 * `401`. Refreshes are serialized across processes by a file lock; under it the stored credential is read again
 * (another process may have refreshed already, and then its token is used), and a rotated token is saved before it
 * is used — so parallel `plat` processes never present one refresh token twice (which would revoke the session).
 */
export class TokenSession {
  private current: StoredCredential;

  constructor(private readonly o: TokenSessionOptions) {
    this.current = o.initial;
  }

  /** The access token, refreshed first when it expires within the margin. */
  async accessToken(): Promise<string> {
    if (expiresSoon(this.current, this.o.clock())) this.current = await this.refresh();
    return this.current.accessToken as string;
  }

  /** The credential headers of the next request. */
  async headers(): Promise<Record<string, string>> {
    return { Authorization: `Bearer ${await this.accessToken()}` };
  }

  /** The stored credential as this session last saw it (for `auth status`-like reports; holds secrets). */
  credential(): StoredCredential {
    return this.current;
  }

  /** After a `401`: a new token (another process's, or refreshed here); true when the request should be sent again. */
  async afterUnauthorized(): Promise<boolean> {
    const rejected = this.current.accessToken;
    this.current = await this.refresh(rejected);
    return this.current.accessToken !== rejected;
  }

  private refresh(rejected?: string): Promise<StoredCredential> {
    const { store, account } = this.o;
    return withFileLock(
      this.o.lockFile,
      async () => {
        const latest = await store.get(account);
        if (!latest?.accessToken) {
          throw new AuthError(
            'unauthenticated',
            `the credential of "${account}" is gone (signed out?); ${SIGN_IN_AGAIN}`,
          );
        }
        const fresh = rejected === undefined ? !expiresSoon(latest, this.o.clock()) : latest.accessToken !== rejected;
        if (fresh) return latest;
        const next = await refreshCredential(latest, this.o.transport, this.o.clock);
        await store.set(account, next); // saved before it is used: the old refresh token is spent now
        return next;
      },
      this.o.lock,
    );
  }
}

/** Redeems a stored refresh token at its issuer (openid-client's refresh grant) for the credential to store next. */
export async function refreshCredential(
  c: StoredCredential,
  transport: OAuthTransport,
  clock: () => Date,
): Promise<StoredCredential> {
  if (!c.refreshToken || !c.issuer) {
    throw new AuthError('unauthenticated', `the access token has expired and cannot be refreshed; ${SIGN_IN_AGAIN}`);
  }
  const { oidc, config, issuer } = await discover(c.issuer, transport, c.clientId ?? CLI_CLIENT_ID);
  try {
    const tokens = await oidc.refreshTokenGrant(config, c.refreshToken);
    return storedTokens(tokens, { clientId: c.clientId ?? CLI_CLIENT_ID, issuer, now: clock(), previous: c });
  } catch (err) {
    const failure = oauthFailure(oidc, err, 'refreshing the access token');
    if (failure.kind !== 'unauthenticated') throw failure;
    throw new AuthError('unauthenticated', `${failure.message}; the session has ended: ${SIGN_IN_AGAIN}`, {
      cause: err,
    });
  }
}
