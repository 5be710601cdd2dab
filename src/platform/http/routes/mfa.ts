import { mfa } from '../../../contract/endpoints/mfa.js';
import { enrollTotp, listFactors, regenerateRecoveryCodes, removeFactor, verifyTotp } from '../../operations/mfa.js';
import { bind } from '../route.js';

export const mfaRoutes = bind(mfa, {
  list: (ctx, { params }) => listFactors(ctx, params.userId),
  remove: (ctx, { params }) => removeFactor(ctx, params.userId, params.factorId),
  enrollTotp: (ctx, { body }) => enrollTotp(ctx, body),
  verifyTotp: (ctx, { params, body }) => verifyTotp(ctx, params.factorId, body.code),
  regenerateRecoveryCodes: (ctx) => regenerateRecoveryCodes(ctx),
});
