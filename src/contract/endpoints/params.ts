import * as z from 'zod';
import { idParam, lazySchema } from '../common.js';
import { environmentNameSchema } from '../projects.js';

/** Path parameter schemas, one per identifier kind. A malformed id answers `404` like an unknown one. */
export const orgParams = lazySchema(() => z.strictObject({ orgId: idParam('org') }));
export const userParams = lazySchema(() => z.strictObject({ userId: idParam('user') }));
export const projectParams = lazySchema(() => z.strictObject({ projectId: idParam('proj') }));
export const teamParams = lazySchema(() => z.strictObject({ teamId: idParam('team') }));
export const invitationParams = lazySchema(() => z.strictObject({ invitationId: idParam('inv') }));
export const keyParams = lazySchema(() => z.strictObject({ keyId: idParam('key') }));
export const domainParams = lazySchema(() => z.strictObject({ domainId: idParam('dom') }));
export const webhookParams = lazySchema(() => z.strictObject({ webhookId: idParam('wh') }));
export const deliveryParams = lazySchema(() =>
  z.strictObject({ webhookId: idParam('wh'), deliveryId: idParam('dlv') }),
);
export const scimTokenParams = lazySchema(() => z.strictObject({ orgId: idParam('org'), tokenId: idParam('scimtok') }));
export const ssoTestParams = lazySchema(() => z.strictObject({ orgId: idParam('org'), testId: idParam('ssot') }));
export const mfaFactorParams = lazySchema(() => z.strictObject({ userId: idParam('user'), factorId: idParam('mfa') }));
export const totpFactorParams = lazySchema(() => z.strictObject({ factorId: idParam('mfa') }));
export const sessionParams = lazySchema(() => z.strictObject({ userId: idParam('user'), sessionId: idParam('sess') }));
export const memberParams = lazySchema(() => z.strictObject({ projectId: idParam('proj'), userId: idParam('user') }));
export const teamMemberParams = lazySchema(() => z.strictObject({ teamId: idParam('team'), userId: idParam('user') }));
/** A malformed environment name names nothing: `404`, like an unknown one. */
export const environmentParams = lazySchema(() =>
  z.strictObject({ projectId: idParam('proj'), name: environmentNameSchema }),
);
