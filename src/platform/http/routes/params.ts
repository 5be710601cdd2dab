import * as z from 'zod';
import { idParam } from '../../../contract/common.js';

/** Path parameter schemas, one per identifier kind. A malformed id answers `404` like an unknown one. */
export const orgParams = z.strictObject({ orgId: idParam('org') });
export const userParams = z.strictObject({ userId: idParam('user') });
export const projectParams = z.strictObject({ projectId: idParam('proj') });
export const teamParams = z.strictObject({ teamId: idParam('team') });
export const invitationParams = z.strictObject({ invitationId: idParam('inv') });
export const keyParams = z.strictObject({ keyId: idParam('key') });
