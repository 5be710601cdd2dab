import * as z from 'zod';
import { idParam } from '../common.js';
import { environmentNameSchema } from '../projects.js';

/** Path parameter schemas, one per identifier kind. A malformed id answers `404` like an unknown one. */
export const orgParams = z.lazy(() => z.strictObject({ orgId: idParam('org') }));
export const userParams = z.lazy(() => z.strictObject({ userId: idParam('user') }));
export const projectParams = z.lazy(() => z.strictObject({ projectId: idParam('proj') }));
export const teamParams = z.lazy(() => z.strictObject({ teamId: idParam('team') }));
export const invitationParams = z.lazy(() => z.strictObject({ invitationId: idParam('inv') }));
export const keyParams = z.lazy(() => z.strictObject({ keyId: idParam('key') }));
export const ssoTestParams = z.lazy(() => z.strictObject({ orgId: idParam('org'), testId: idParam('ssot') }));
export const sessionParams = z.lazy(() => z.strictObject({ userId: idParam('user'), sessionId: idParam('sess') }));
export const memberParams = z.lazy(() => z.strictObject({ projectId: idParam('proj'), userId: idParam('user') }));
export const teamMemberParams = z.lazy(() => z.strictObject({ teamId: idParam('team'), userId: idParam('user') }));
/** A malformed environment name names nothing: `404`, like an unknown one. */
export const environmentParams = z.lazy(() =>
  z.strictObject({ projectId: idParam('proj'), name: environmentNameSchema }),
);
