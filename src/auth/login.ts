import type { StoredCredential } from './credential-types.js';
import { AuthError } from './errors.js';
import { startLoopback } from './loopback.js';
import { CLI_CLIENT_ID, type Discovered, discover, type OAuthTransport, oauthFailure } from './oidc.js';
import { storedTokens } from './tokens.js';

/** What a sign-in needs: the issuer, how to reach it, what to ask for, and how to talk to the person. */
export interface LoginOptions {
  /** `{base_url}/auth`. */
  issuer: string;
  transport: OAuthTransport;
  /** Permissions to ask for; none = every permission the user holds. */
  scopes?: string[];
  /** The organization to sign in to (the authorization request's `org`). */
  org?: string;
  /** The person's e-mail (`login_hint`): a single sign-on domain goes straight to its identity provider. */
  email?: string;
  /** How long to wait for the person. */
  timeoutMs: number;
  clock: () => Date;
  /** A line for the person (stderr). */
  say: (line: string) => void;
}

/** `90 s`, `5 min`: how long the person has. */
function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

function extraParameters(o: LoginOptions): Record<string, string> {
  return {
    ...(o.scopes?.length && { scope: o.scopes.join(' ') }),
    ...(o.org && { org: o.org }),
    ...(o.email && { login_hint: o.email }),
  };
}

function credentialOf(d: Discovered, tokens: Parameters<typeof storedTokens>[0], o: LoginOptions): StoredCredential {
  return storedTokens(tokens, { clientId: CLI_CLIENT_ID, issuer: d.issuer, now: o.clock() });
}

/**
 * The authorization code flow with PKCE (S256) through the browser: a loopback receiver on 127.0.0.1, the
 * authorization URL opened by `open` (or only printed, when `open` is absent or fails), one callback whose `state`
 * matches, and the code redeemed with the verifier. Returns the credential to store.
 */
export async function loginWithBrowser(
  o: LoginOptions & { open?: (url: string) => Promise<boolean> },
): Promise<StoredCredential> {
  const d = await discover(o.issuer, o.transport);
  const { oidc, config } = d;
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const loopback = await startLoopback({ state, timeoutMs: o.timeoutMs });
  try {
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: loopback.redirectUri,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...extraParameters(o),
    });
    const opened = o.open ? await o.open(url.href) : false;
    if (opened) o.say('Opened the sign-in page in your browser. If it did not appear, open this URL:');
    else if (o.open) o.say('Could not start a browser. Open this URL in a browser to sign in:');
    else o.say('Open this URL in a browser to sign in:');
    o.say(`  ${url.href}`);
    o.say(`Waiting for the browser (up to ${duration(o.timeoutMs)}; Ctrl-C cancels)…`);
    const back = await loopback.callback;
    const tokens = await oidc.authorizationCodeGrant(config, back, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    await loopback.finish({ ok: true, message: 'plat is signed in. You can close this window.' });
    return credentialOf(d, tokens, o);
  } catch (err) {
    const failure = oauthFailure(oidc, err, 'signing in');
    await loopback.finish({ ok: false, message: `${failure.message}. Nothing was stored; run plat login again.` });
    throw failure;
  }
}

/**
 * The device authorization grant (RFC 8628), for machines without a browser: prints where to go and the code to
 * enter there, then polls the token endpoint at the server's pace until the person approves, denies, or time is up.
 */
export async function loginWithDevice(o: LoginOptions): Promise<StoredCredential> {
  const d = await discover(o.issuer, o.transport);
  const { oidc, config } = d;
  let started: Awaited<ReturnType<typeof oidc.initiateDeviceAuthorization>>;
  try {
    started = await oidc.initiateDeviceAuthorization(config, extraParameters(o));
  } catch (err) {
    throw oauthFailure(oidc, err, 'starting the device sign-in');
  }
  const waitMs = Math.min(o.timeoutMs, started.expires_in * 1000);
  o.say(`To sign in, open ${started.verification_uri} and enter the code ${started.user_code}`);
  if (started.verification_uri_complete) o.say(`  (or open ${started.verification_uri_complete})`);
  o.say(`Waiting for the sign-in to be approved (up to ${duration(waitMs)}; Ctrl-C cancels)…`);
  const signal = AbortSignal.timeout(waitMs);
  try {
    const tokens = await oidc.pollDeviceAuthorizationGrant(config, started, undefined, { signal });
    return credentialOf(d, tokens, o);
  } catch (err) {
    if (signal.aborted) {
      throw new AuthError(
        'unauthenticated',
        `the sign-in was not approved within ${duration(waitMs)}; nothing was stored`,
      );
    }
    throw oauthFailure(oidc, err, 'the device sign-in');
  }
}
