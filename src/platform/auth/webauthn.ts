import { isIP } from 'node:net';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Amr } from '../../contract/mfa.js';
import type { BaseCtx } from '../context.js';
import type { StoredFactor } from '../store/mfa.js';
import { recordForAccount, recoveryCodesIfNone } from './second-factor.js';
import { hashOpaque } from './secrets.js';
import { clearTries, factorKeys, takeTry } from './throttle.js';

// WebAuthn passkeys (docs/mfa.md). @simplewebauthn/server is loaded on first use, never at start (nor into the
// startup snapshot: scripts/bundle.mjs requires it from node_modules there).
const library = () => import('@simplewebauthn/server');

/** ES256 and RS256: what every authenticator offers, and what the platform verifies. */
const ALGORITHMS = [-7, -257];
/** How long a challenge handed to a browser stays good: as long as the step's login ticket. */
const CHALLENGE_TTL_MS = 5 * 60_000;

/** The relying party: the public URL's host (its id, which browsers match), its origin, and the name shown. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/** The relying party of this instance, from its public URL. */
export function relyingParty(ctx: BaseCtx): RelyingParty {
  const url = new URL(ctx.publicUrl);
  return { id: url.hostname, origin: url.origin, name: 'plat' };
}

/**
 * Whether the pages offer passkeys: only where a browser can use them — a named host (browsers refuse an IP address
 * as the relying party's id) in a secure context (HTTPS, or `localhost` and its subdomains over HTTP). Elsewhere (the
 * default `http://127.0.0.1:8080`) the pages stay as they were, without a script.
 */
export function passkeysOffered(ctx: BaseCtx): boolean {
  const url = new URL(ctx.publicUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return false;
  return url.protocol === 'https:' || host === 'localhost' || host.endsWith('.localhost');
}

/** The account's passkeys. */
async function passkeysOf(ctx: BaseCtx, userId: string): Promise<StoredFactor[]> {
  return (await ctx.stores.mfa.list(userId)).filter((f) => f.type === 'webauthn' && f.webauthn !== null);
}

/** Whether the account has a passkey. */
export async function hasPasskey(ctx: BaseCtx, userId: string): Promise<boolean> {
  return (await passkeysOf(ctx, userId)).length > 0;
}

/** Records the challenge of options handed out (hashed, single use), bound to the account when there is one. */
async function recordChallenge(
  ctx: BaseCtx,
  challenge: string,
  accountId: string | null,
  purpose: 'register' | 'authenticate',
): Promise<void> {
  const now = ctx.clock().getTime();
  await ctx.tx((ctx) =>
    ctx.stores.mfa.insertChallenge({
      hash: hashOpaque(challenge),
      accountId,
      purpose,
      now: new Date(now).toISOString(),
      expiresAt: new Date(now + CHALLENGE_TTL_MS).toISOString(),
    }),
  );
}

/**
 * The options of a new passkey for the account (`navigator.credentials.create`): a discoverable credential (so it
 * can sign in without a password), user verification preferred, none of the account's passkeys again.
 */
export async function registrationOptions(
  ctx: BaseCtx,
  userId: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const account = await ctx.stores.users.accountById(userId);
  if (!account) throw new Error('the account to register a passkey for is gone');
  const rp = relyingParty(ctx);
  const { generateRegistrationOptions } = await library();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: account.email,
    userDisplayName: account.email,
    userID: new TextEncoder().encode(userId),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: (await passkeysOf(ctx, userId)).map((f) => ({
      id: f.webauthn?.credentialId as string,
      transports: f.webauthn?.transports,
    })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  await recordChallenge(ctx, options.challenge, userId, 'register');
  return options;
}

/**
 * The options of an assertion (`navigator.credentials.get`): for the second-factor step, the account's passkeys and
 * user verification preferred; without an account (a sign-in without a password), any discoverable passkey of this
 * relying party, and user verification required — the passkey then stands for both factors.
 */
export async function authenticationOptions(
  ctx: BaseCtx,
  userId: string | null,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = userId === null ? [] : await passkeysOf(ctx, userId);
  const { generateAuthenticationOptions } = await library();
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx).id,
    allowCredentials: allow.map((f) => ({
      id: f.webauthn?.credentialId as string,
      transports: f.webauthn?.transports,
    })),
    userVerification: userId === null ? 'required' : 'preferred',
    timeout: CHALLENGE_TTL_MS,
  });
  await recordChallenge(ctx, options.challenge, userId, 'authenticate');
  return options;
}

/** What the browser posted, read as far as finding its challenge; undefined when it is not a credential's JSON. */
function parseResponse<T extends RegistrationResponseJSON | AuthenticationResponseJSON>(
  text: string,
): { response: T; challenge: string } | undefined {
  try {
    const response = JSON.parse(text) as T;
    const clientData = response?.response?.clientDataJSON;
    if (typeof response.id !== 'string' || typeof clientData !== 'string') return undefined;
    const { challenge } = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof challenge === 'string' && challenge.length <= 512 ? { response, challenge } : undefined;
  } catch {
    return undefined;
  }
}

/** RFC 8176's values for an assertion or a registration: a key in hardware or software, and whether the user was. */
function passkeyAmr(backedUp: boolean, userVerified: boolean): Amr[] {
  return [backedUp ? 'swk' : 'hwk', ...(userVerified ? (['user'] as const) : [])];
}

/** Records a failed passkey (`mfa.failed`); its try was taken from the user's limit before it was checked. */
async function failed(ctx: BaseCtx, userId: string, factorId?: string): Promise<void> {
  await ctx.tx((ctx) =>
    recordForAccount(ctx, userId, { type: 'user', id: userId }, 'mfa.failed', {
      factor: 'webauthn',
      ...(factorId && { factorId }),
    }),
  );
}

/** What registering a passkey came to. */
export type PasskeyRegistration =
  | { ok: true; factorId: string; amr: Amr[]; recoveryCodes: string[] | null }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; retryAfter: number };

/**
 * Registers the passkey the browser made with `registrationOptions`: its challenge (taken once) must be the
 * account's, the attestation must verify for this origin and relying party. An account without recovery codes gets
 * them now (shown once); the factor is recorded (`mfa.enrolled`). A failure counts like a wrong code.
 */
export async function registerPasskey(ctx: BaseCtx, userId: string, posted: string): Promise<PasskeyRegistration> {
  const retryAfter = await takeTry(ctx, factorKeys(userId));
  if (retryAfter > 0) return { ok: false, reason: 'locked', retryAfter };
  const parsed = parseResponse<RegistrationResponseJSON>(posted);
  const taken = parsed && (await ctx.stores.mfa.takeChallenge(hashOpaque(parsed.challenge), ctx.now()));
  if (!parsed || taken?.purpose !== 'register' || taken.accountId !== userId) {
    await failed(ctx, userId);
    return { ok: false, reason: 'invalid' };
  }
  const rp = relyingParty(ctx);
  const { verifyRegistrationResponse } = await library();
  const verified = await verifyRegistrationResponse({
    response: parsed.response,
    expectedChallenge: parsed.challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
    supportedAlgorithmIDs: ALGORITHMS,
  }).catch(() => undefined);
  if (!verified?.verified) {
    await failed(ctx, userId);
    return { ok: false, reason: 'invalid' };
  }
  const info = verified.registrationInfo;
  const factorId = ctx.ids('mfaFactor');
  const recoveryCodes = await ctx.tx(async (ctx) => {
    if (await ctx.stores.mfa.byCredentialId(info.credential.id)) return undefined;
    await ctx.stores.mfa.insertWebauthn({
      id: factorId,
      accountId: userId,
      name: 'Passkey',
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      signCount: info.credential.counter,
      transports: info.credential.transports ?? [],
      backedUp: info.credentialBackedUp,
      now: ctx.now(),
    });
    const codes = await recoveryCodesIfNone(ctx, userId);
    await recordForAccount(ctx, userId, { type: 'user', id: userId }, 'mfa.enrolled', {
      factorId,
      factor: 'webauthn',
      name: 'Passkey',
    });
    return codes;
  });
  // A credential registered already (excludeCredentials asks the browser not to): refused like any bad one.
  if (recoveryCodes === undefined) {
    await failed(ctx, userId);
    return { ok: false, reason: 'invalid' };
  }
  await clearTries(ctx, factorKeys(userId));
  return {
    ok: true,
    factorId,
    amr: passkeyAmr(info.credentialBackedUp, info.userVerified),
    recoveryCodes,
  };
}

/** What checking a passkey's assertion came to; `userId` names the account a refused one was for, when known. */
export type PasskeyCheck =
  | { ok: true; userId: string; factorId: string; amr: Amr[] }
  | { ok: false; reason: 'invalid'; userId: string | null }
  | { ok: false; reason: 'locked'; retryAfter: number };

/**
 * Checks an assertion the browser made with `authenticationOptions`: its challenge (taken once: a replayed assertion
 * finds none) must be of the same kind — the account's (`userId`, the second-factor step) or none's (`null`, a
 * sign-in without a password, which requires user verification) — and the signature must verify with the stored
 * public key of the credential the browser names. The counter and backup state are kept. A failure for a known
 * account counts like a wrong code (the try taken before it is checked) and is recorded (`mfa.failed`); while its
 * limit is spent, nothing is checked.
 */
export async function checkPasskey(ctx: BaseCtx, posted: string, userId: string | null): Promise<PasskeyCheck> {
  const parsed = parseResponse<AuthenticationResponseJSON>(posted);
  const factor = parsed && (await ctx.stores.mfa.byCredentialId(parsed.response.id));
  const owner = userId ?? factor?.accountId ?? null;
  if (owner !== null) {
    const retryAfter = await takeTry(ctx, factorKeys(owner));
    if (retryAfter > 0) return { ok: false, reason: 'locked', retryAfter };
  }
  const refuse = async (): Promise<PasskeyCheck> => {
    if (owner !== null) await failed(ctx, owner, factor?.accountId === owner ? factor.id : undefined);
    return { ok: false, reason: 'invalid', userId: owner };
  };
  const taken = parsed && (await ctx.stores.mfa.takeChallenge(hashOpaque(parsed.challenge), ctx.now()));
  if (!parsed || taken?.purpose !== 'authenticate' || taken.accountId !== userId) return refuse();
  const stored = factor?.webauthn;
  if (!factor || !stored || !factor.confirmed || (userId !== null && factor.accountId !== userId)) return refuse();
  // A discoverable credential also names its user: it must be the credential's account.
  const handle = parsed.response.response.userHandle;
  if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== factor.accountId) return refuse();
  const rp = relyingParty(ctx);
  const { verifyAuthenticationResponse } = await library();
  const verified = await verifyAuthenticationResponse({
    response: parsed.response,
    expectedChallenge: parsed.challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: stored.credentialId,
      publicKey: new Uint8Array(Buffer.from(stored.publicKey, 'base64url')),
      counter: stored.signCount,
      transports: stored.transports,
    },
    requireUserVerification: userId === null,
  }).catch(() => undefined);
  if (!verified?.verified) return refuse();
  const info = verified.authenticationInfo;
  await ctx.tx((ctx) => ctx.stores.mfa.usedCredential(factor.id, info.newCounter, info.credentialBackedUp, ctx.now()));
  await clearTries(ctx, factorKeys(factor.accountId));
  return {
    ok: true,
    userId: factor.accountId,
    factorId: factor.id,
    amr: passkeyAmr(info.credentialBackedUp, info.userVerified),
  };
}
