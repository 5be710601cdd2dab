import type { Amr } from '../../contract/mfa.js';
import type { SignInMethod } from '../../contract/sessions.js';
import { amrText, storedAmr } from '../auth/amr.js';
import type { Q } from './sql.js';

/** The states of a device authorization. */
export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'redeemed';

/** A stored device authorization (RFC 8628). */
export interface StoredDeviceCode {
  deviceCodeHash: string;
  userCode: string;
  clientId: string;
  requestedScope: string | null;
  requestedOrg: string | null;
  status: DeviceStatus;
  userId: string | null;
  orgId: string | null;
  scopes: string[] | null;
  ipAddress: string | null;
  userAgent: string | null;
  pollInterval: number;
  lastPolledAt: string | null;
  createdAt: string;
  expiresAt: string;
  sessionId: string | null;
  /** How the person who approved it signed in (`device` by password on the device page, or through SSO). */
  method: SignInMethod | null;
  /** With what (RFC 8176), once approved. */
  amr: Amr[] | null;
}

type DeviceRow = {
  device_code_hash: string;
  user_code: string;
  client_id: string;
  requested_scope: string | null;
  requested_org: string | null;
  status: DeviceStatus;
  user_id: string | null;
  org_id: string | null;
  scopes: string | null;
  ip_address: string | null;
  user_agent: string | null;
  poll_interval: number;
  last_polled_at: string | null;
  created_at: string;
  expires_at: string;
  session_id: string | null;
  method: SignInMethod | null;
  amr: string | null;
};

function toDevice(r: DeviceRow): StoredDeviceCode {
  return {
    deviceCodeHash: r.device_code_hash,
    userCode: r.user_code,
    clientId: r.client_id,
    requestedScope: r.requested_scope,
    requestedOrg: r.requested_org,
    status: r.status,
    userId: r.user_id,
    orgId: r.org_id,
    scopes: r.scopes === null ? null : (JSON.parse(r.scopes) as string[]),
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
    pollInterval: r.poll_interval,
    lastPolledAt: r.last_polled_at,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    sessionId: r.session_id,
    method: r.method,
    amr: r.method === null ? null : storedAmr(r.amr, r.method),
  };
}

/**
 * Device authorizations (RFC 8628): their SQL (part of `stores.auth`). The device code is stored as a hash, the user
 * code as typed (normalized).
 */
export function devicesStatements(q: Q) {
  const select = () => q.selectFrom('device_codes').selectAll().$castTo<DeviceRow>();
  return {
    insertDeviceCode: async (d: {
      deviceCodeHash: string;
      userCode: string;
      clientId: string;
      requestedScope: string | null;
      requestedOrg: string | null;
      pollInterval: number;
      createdAt: string;
      expiresAt: string;
    }): Promise<void> => {
      await q
        .insertInto('device_codes')
        .values({
          device_code_hash: d.deviceCodeHash,
          user_code: d.userCode,
          client_id: d.clientId,
          requested_scope: d.requestedScope,
          requested_org: d.requestedOrg,
          status: 'pending',
          poll_interval: d.pollInterval,
          created_at: d.createdAt,
          expires_at: d.expiresAt,
        })
        .execute();
    },
    deviceCodeByHash: async (hash: string) => {
      const r = await select().where('device_code_hash', '=', hash).executeTakeFirst();
      return r && toDevice(r);
    },
    /** The pending, unexpired device authorization with this user code. */
    pendingDeviceCode: async (userCode: string, now: string) => {
      const r = await select()
        .where('user_code', '=', userCode)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return r && toDevice(r);
    },
    /** Whether a user code is in use (by any device authorization still stored). */
    userCodeTaken: async (userCode: string) => {
      const r = await q
        .selectFrom('device_codes')
        .select('device_code_hash')
        .where('user_code', '=', userCode)
        .executeTakeFirst();
      return r !== undefined;
    },
    /** Approves a pending device authorization (compare-and-set); false when it no longer is pending. */
    approveDeviceCode: async (
      hash: string,
      grant: {
        userId: string;
        orgId: string;
        scopes: string[];
        ipAddress: string | null;
        userAgent: string | null;
        method: SignInMethod;
        amr: Amr[];
      },
      now: string,
    ) => {
      const r = await q
        .updateTable('device_codes')
        .set({
          status: 'approved',
          user_id: grant.userId,
          org_id: grant.orgId,
          scopes: JSON.stringify(grant.scopes),
          ip_address: grant.ipAddress,
          user_agent: grant.userAgent,
          method: grant.method,
          amr: amrText(grant.amr),
        })
        .where('device_code_hash', '=', hash)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    /** Denies a pending device authorization (compare-and-set). */
    denyDeviceCode: async (hash: string, now: string) => {
      const r = await q
        .updateTable('device_codes')
        .set({ status: 'denied' })
        .where('device_code_hash', '=', hash)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    /** Records a poll and the interval the client must keep from now on. */
    recordDevicePoll: async (hash: string, now: string, interval: number): Promise<void> => {
      await q
        .updateTable('device_codes')
        .set({ last_polled_at: now, poll_interval: interval })
        .where('device_code_hash', '=', hash)
        .execute();
    },
    /** Marks an approved device authorization of `clientId` redeemed (compare-and-set); its grant, or undefined. */
    redeemDeviceCode: async (hash: string, clientId: string, now: string) => {
      const r = await q
        .updateTable('device_codes')
        .set({ status: 'redeemed' })
        .where('device_code_hash', '=', hash)
        .where('status', '=', 'approved')
        .where('client_id', '=', clientId)
        .where('expires_at', '>', now)
        .returningAll()
        .$castTo<DeviceRow>()
        .executeTakeFirst();
      return r && toDevice(r);
    },
    setDeviceSession: async (hash: string, sessionId: string): Promise<void> => {
      await q.updateTable('device_codes').set({ session_id: sessionId }).where('device_code_hash', '=', hash).execute();
    },

    /** Forgets device authorizations that expired before `before`. */
    purgeDevices: async (before: string): Promise<void> => {
      await q.deleteFrom('device_codes').where('expires_at', '<', before).execute();
    },
  };
}
