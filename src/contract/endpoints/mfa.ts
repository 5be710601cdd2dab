import { plainListSchema } from '../common.js';
import { endpoint } from '../endpoint.js';
import {
  mfaFactorSchema,
  recoveryCodesSchema,
  totpEnrollmentSchema,
  totpEnrollSchema,
  totpVerifiedSchema,
  totpVerifySchema,
} from '../mfa.js';
import { mfaFactorParams, totpFactorParams, userParams } from './params.js';

const tag = 'mfa';

export const mfa = {
  list: endpoint({
    method: 'GET',
    path: '/users/{userId}/mfa',
    operationId: 'listMfaFactors',
    summary: "List a user's second factors",
    description: 'Enrolled factors, oldest first; never their secrets. A TOTP factor not yet verified is not listed.',
    tag,
    access: 'sessions:read',
    scope: 'self',
    accessNote:
      "Everyone may list their own (a restricted key or token still needs sessions:read); other users' need " +
      'sessions:read (owners and admins).',
    params: userParams,
    response: plainListSchema(mfaFactorSchema),
  }),
  remove: endpoint({
    method: 'DELETE',
    path: '/users/{userId}/mfa/{factorId}',
    operationId: 'removeMfaFactor',
    summary: "Remove a second factor (another user's: a reset)",
    description:
      'Removing the last factor other than recovery codes removes the recovery codes too. In an organization whose ' +
      'policy is `required`, the member enrolls again at the next sign-in.',
    tag,
    access: 'sessions:write',
    scope: 'self',
    accessNote:
      "Everyone may remove their own (a restricted key or token still needs sessions:write); other users' need " +
      "sessions:write (owners and admins), and only owners may reset an owner's.",
    params: mfaFactorParams,
    status: 204,
  }),
  enrollTotp: endpoint({
    method: 'POST',
    path: '/auth/mfa/totp',
    operationId: 'enrollTotp',
    summary: 'Start enrolling an authenticator app: its secret and otpauth:// URI',
    description:
      'The factor counts once `POST /auth/mfa/totp/{factorId}/verify` has accepted a code from the app; an ' +
      'unverified one is replaced by the next enrolment.',
    tag,
    access: 'user',
    body: totpEnrollSchema,
    status: 201,
    response: totpEnrollmentSchema,
    secret: true,
  }),
  verifyTotp: endpoint({
    method: 'POST',
    path: '/auth/mfa/totp/{factorId}/verify',
    operationId: 'verifyTotp',
    summary: 'Finish enrolling an authenticator app with a code it shows',
    description:
      'A wrong code is a `422` and counts toward the limit of failed codes (5 in 15 minutes, then `429`). The ' +
      "account's first factor also answers its recovery codes.",
    tag,
    access: 'user',
    params: totpFactorParams,
    body: totpVerifySchema,
    response: totpVerifiedSchema,
    secret: true,
  }),
  regenerateRecoveryCodes: endpoint({
    method: 'POST',
    path: '/auth/mfa/recovery-codes',
    operationId: 'regenerateRecoveryCodes',
    summary: 'A new set of recovery codes, replacing the earlier ones (used or not)',
    description:
      'For an account with a second factor (`409` without one), with a session signed in with it. The codes are ' +
      'in this answer only.',
    tag,
    access: 'user',
    response: recoveryCodesSchema,
    secret: true,
  }),
} as const;
