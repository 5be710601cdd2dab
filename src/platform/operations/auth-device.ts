import { randomInt } from 'node:crypto';
import type { Amr } from '../../contract/mfa.js';
import { type DeviceAuthorizationResponse, ORG_ID } from '../../contract/oauth.js';
import type { SignInMethod } from '../../contract/sessions.js';
import { methodAmr } from '../auth/amr.js';
import { OAuthError } from '../auth/oauth-error.js';
import { parseScope } from '../auth/scopes.js';
import { hashOpaque, newOpaqueSecret } from '../auth/secrets.js';
import { authUrl } from '../auth/settings.js';
import type { BaseCtx } from '../context.js';
import type { StoredDeviceCode } from '../store/auth.js';
import {
  finishGrant,
  type Grant,
  recordSignIn,
  requireClient,
  revokeForReuse,
  startSession,
  type TokenSet,
} from './auth.js';

/** RFC 8628 §6.1: twenty consonants — no vowels (no words), no look-alikes — 8 of them is 34.6 bits. */
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
const KEEP_EXPIRED_MS = 24 * 3600_000;

/** A user code as typed (any case, spaces, dashes) reduced to its letters; empty when it cannot be one. */
export function normalizeUserCode(input: string): string {
  const letters = input.toUpperCase().replace(/[^A-Z]/g, '');
  return letters.length === USER_CODE_LENGTH && [...letters].every((ch) => ALPHABET.includes(ch)) ? letters : '';
}

/** `BCDF-GHJK`: how a user code is shown. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** Starts a device authorization for a client: a device code for it, a user code for the person. */
export async function startDeviceAuthorization(
  ctx: BaseCtx,
  r: { clientId?: string; scope?: string; org?: string },
): Promise<DeviceAuthorizationResponse> {
  const client = requireClient(ctx, r.clientId);
  const scope = parseScope(r.scope);
  if (!scope.ok) throw new OAuthError('invalid_scope', `unknown scope: ${scope.unknown.join(' ')}`);
  if (r.org !== undefined && !ORG_ID.test(r.org)) {
    throw new OAuthError('invalid_request', 'org is not an organization identifier');
  }
  const { secret, hash } = newOpaqueSecret();
  const now = ctx.clock().getTime();
  const interval = ctx.auth.devicePollInterval;
  const userCode = await ctx.tx(async (ctx) => {
    await ctx.stores.auth.purgeExpired(new Date(now - KEEP_EXPIRED_MS).toISOString());
    let code = newUserCode();
    while (await ctx.stores.auth.userCodeTaken(code)) code = newUserCode();
    await ctx.stores.auth.insertDeviceCode({
      deviceCodeHash: hash,
      userCode: code,
      clientId: client.id,
      requestedScope: scope.scopes ? scope.scopes.join(' ') : null,
      requestedOrg: r.org ?? null,
      pollInterval: interval,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ctx.auth.deviceCodeTtl * 1000).toISOString(),
    });
    return code;
  });
  const verificationUri = `${authUrl(ctx)}/device`;
  return {
    device_code: secret,
    user_code: formatUserCode(userCode),
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?user_code=${formatUserCode(userCode)}`,
    expires_in: ctx.auth.deviceCodeTtl,
    interval,
  };
}

/** The pending device authorization a (normalized) user code names, if it has not expired. */
export async function findDeviceAuthorization(ctx: BaseCtx, userCode: string): Promise<StoredDeviceCode | undefined> {
  return userCode ? ctx.stores.auth.pendingDeviceCode(userCode, ctx.now()) : undefined;
}

/** The signed-in user approves the device: the scopes it asked for that they hold, in `orgId`. False when too late. */
export async function approveDevice(
  ctx: BaseCtx,
  device: StoredDeviceCode,
  s: { userId: string; orgId: string; ipAddress: string | null; userAgent: string | null },
  method: SignInMethod = 'device',
  amr: Amr[] = methodAmr(method),
): Promise<boolean> {
  const requested = parseScope(device.requestedScope);
  return ctx.tx(async (ctx) => {
    const scopes = await recordSignIn(ctx, {
      ...s,
      clientId: device.clientId,
      requested: requested.ok ? requested.scopes : [],
      method,
      amr,
    });
    const grant = { ...s, scopes, method, amr };
    if (!(await ctx.stores.auth.approveDeviceCode(device.deviceCodeHash, grant, ctx.now()))) {
      throw new OAuthError('expired_token', 'the code is no longer pending');
    }
    return true;
  });
}

/** The person refuses the device. False when it was no longer pending. */
export async function denyDevice(ctx: BaseCtx, device: StoredDeviceCode): Promise<boolean> {
  return ctx.stores.auth.denyDeviceCode(device.deviceCodeHash, ctx.now());
}

function failure(error: ConstructorParameters<typeof OAuthError>[0], message: string): { error: OAuthError } {
  return { error: new OAuthError(error, message) };
}

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:device_code`: `authorization_pending` while the person has not
 * answered, `slow_down` (and 5 s more from then on) when polled faster than the interval, `access_denied`,
 * `expired_token`; once approved, one compare-and-set redeems it. A second redemption revokes what the first issued.
 */
export async function redeemDeviceCode(ctx: BaseCtx, r: { clientId?: string; deviceCode?: string }): Promise<TokenSet> {
  const client = requireClient(ctx, r.clientId);
  if (!r.deviceCode) throw new OAuthError('invalid_request', 'device_code is required');
  const hash = hashOpaque(r.deviceCode);
  const outcome = await ctx.tx(async (ctx): Promise<{ ok: Grant } | { error: OAuthError }> => {
    const now = ctx.now();
    const redeemed = await ctx.stores.auth.redeemDeviceCode(hash, client.id, now);
    if (redeemed?.userId && redeemed.orgId) {
      if ((await ctx.stores.users.get(redeemed.orgId, redeemed.userId))?.status !== 'active') {
        return failure('invalid_grant', 'the user is no longer active');
      }
      const started = await startSession(ctx, {
        userId: redeemed.userId,
        orgId: redeemed.orgId,
        clientId: client.id,
        scopes: redeemed.scopes ?? [],
        ipAddress: redeemed.ipAddress,
        userAgent: redeemed.userAgent,
        method: redeemed.method ?? 'device',
        amr: redeemed.amr ?? methodAmr(redeemed.method ?? 'device'),
      });
      await ctx.stores.auth.setDeviceSession(hash, started.sessionId);
      return { ok: started };
    }
    const d = await ctx.stores.auth.deviceCodeByHash(hash);
    if (!d || d.clientId !== client.id) return failure('invalid_grant', 'invalid device code');
    if (d.status === 'redeemed') {
      await revokeForReuse(ctx, d.sessionId, 'device code');
      return failure('invalid_grant', 'the device code was already used; the tokens issued for it are revoked');
    }
    if (d.expiresAt <= now) return failure('expired_token', 'the device code has expired; start again');
    if (d.status === 'denied') return failure('access_denied', 'the request was denied');
    const nowMs = Date.parse(now);
    const tooSoon = d.lastPolledAt !== null && nowMs - Date.parse(d.lastPolledAt) < d.pollInterval * 1000;
    const interval = tooSoon ? d.pollInterval + 5 : d.pollInterval;
    await ctx.stores.auth.recordDevicePoll(hash, now, interval);
    if (tooSoon) return failure('slow_down', `polling too fast; wait ${interval} seconds between requests`);
    return failure('authorization_pending', 'waiting for the user to approve the request');
  });
  if ('error' in outcome) throw outcome.error;
  return finishGrant(ctx, outcome.ok);
}
