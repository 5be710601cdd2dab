import type { SignInMethod } from '../../contract/sessions.js';
import type { Db } from './db.js';

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
  };
}

/**
 * Device authorizations (RFC 8628): their SQL (part of `stores.auth`). The device code is stored as a hash, the user
 * code as typed (normalized).
 */
export function devicesStatements(db: Db) {
  const insertDevice = db.prepare(
    `INSERT INTO device_codes (device_code_hash, user_code, client_id, requested_scope, requested_org, status,
       poll_interval, created_at, expires_at)
     VALUES (@deviceCodeHash, @userCode, @clientId, @requestedScope, @requestedOrg, 'pending', @pollInterval,
       @createdAt, @expiresAt)`,
  );
  const deviceByHash = db.prepare<[string], DeviceRow>('SELECT * FROM device_codes WHERE device_code_hash = ?');
  const deviceByUserCode = db.prepare<[string, string], DeviceRow>(
    "SELECT * FROM device_codes WHERE user_code = ? AND status = 'pending' AND expires_at > ?",
  );
  const userCodeTaken = db.prepare<[string], { one: 1 }>('SELECT 1 AS one FROM device_codes WHERE user_code = ?');
  const approveDevice = db.prepare(
    `UPDATE device_codes SET status = 'approved', user_id = @userId, org_id = @orgId, scopes = @scopes,
       ip_address = @ipAddress, user_agent = @userAgent, method = @method
     WHERE device_code_hash = @hash AND status = 'pending' AND expires_at > @now`,
  );
  const denyDevice = db.prepare(
    "UPDATE device_codes SET status = 'denied' WHERE device_code_hash = ? AND status = 'pending' AND expires_at > ?",
  );
  const pollDevice = db.prepare(
    'UPDATE device_codes SET last_polled_at = @now, poll_interval = @interval WHERE device_code_hash = @hash',
  );
  const redeemDevice = db.prepare<Record<string, string>, DeviceRow>(
    `UPDATE device_codes SET status = 'redeemed'
     WHERE device_code_hash = @hash AND status = 'approved' AND client_id = @clientId AND expires_at > @now
     RETURNING *`,
  );
  const setDeviceSession = db.prepare('UPDATE device_codes SET session_id = ? WHERE device_code_hash = ?');

  const purgeDevices = db.prepare('DELETE FROM device_codes WHERE expires_at < ?');
  return {
    insertDeviceCode: (d: {
      deviceCodeHash: string;
      userCode: string;
      clientId: string;
      requestedScope: string | null;
      requestedOrg: string | null;
      pollInterval: number;
      createdAt: string;
      expiresAt: string;
    }) => void insertDevice.run(d),
    deviceCodeByHash: (hash: string) => {
      const r = deviceByHash.get(hash);
      return r && toDevice(r);
    },
    /** The pending, unexpired device authorization with this user code. */
    pendingDeviceCode: (userCode: string, now: string) => {
      const r = deviceByUserCode.get(userCode, now);
      return r && toDevice(r);
    },
    /** Whether a user code is in use (by any device authorization still stored). */
    userCodeTaken: (userCode: string) => userCodeTaken.get(userCode) !== undefined,
    /** Approves a pending device authorization (compare-and-set); false when it no longer is pending. */
    approveDeviceCode: (
      hash: string,
      grant: {
        userId: string;
        orgId: string;
        scopes: string[];
        ipAddress: string | null;
        userAgent: string | null;
        method: SignInMethod;
      },
      now: string,
    ) => approveDevice.run({ ...grant, scopes: JSON.stringify(grant.scopes), hash, now }).changes === 1,
    /** Denies a pending device authorization (compare-and-set). */
    denyDeviceCode: (hash: string, now: string) => denyDevice.run(hash, now).changes === 1,
    /** Records a poll and the interval the client must keep from now on. */
    recordDevicePoll: (hash: string, now: string, interval: number) => void pollDevice.run({ hash, now, interval }),
    /** Marks an approved device authorization of `clientId` redeemed (compare-and-set); its grant, or undefined. */
    redeemDeviceCode: (hash: string, clientId: string, now: string) => {
      const r = redeemDevice.get({ hash, clientId, now });
      return r && toDevice(r);
    },
    setDeviceSession: (hash: string, sessionId: string) => void setDeviceSession.run(sessionId, hash),

    /** Forgets device authorizations that expired before `before`. */
    purgeDevices: (before: string) => void purgeDevices.run(before),
  };
}
