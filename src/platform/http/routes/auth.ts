import { auth, oauth } from '../../../contract/endpoints/auth.js';
import { authorizePage, authorizeSubmit } from '../../auth/authorize.js';
import { deviceCodeEndpoint, devicePageGet, devicePageSubmit } from '../../auth/device.js';
import { jwksEndpoint, metadataEndpoint } from '../../auth/discovery.js';
import { invitationPageGet, invitationPageSubmit } from '../../auth/invitation-page.js';
import { refreshEndpoint } from '../../auth/refresh-endpoint.js';
import { revokeEndpoint, tokenEndpoint } from '../../auth/token-endpoint.js';
import { whoami } from '../../operations/auth.js';
import { bind } from '../route.js';

export const oauthRoutes = bind(oauth, {
  metadata: metadataEndpoint,
  jwks: jwksEndpoint,
  authorize: authorizePage,
  authorizeSubmit: authorizeSubmit,
  token: tokenEndpoint,
  refresh: refreshEndpoint,
  revoke: revokeEndpoint,
  deviceAuthorization: deviceCodeEndpoint,
  devicePage: devicePageGet,
  devicePageSubmit: devicePageSubmit,
  invitationPage: invitationPageGet,
  acceptInvitation: invitationPageSubmit,
});

export const authRoutes = bind(auth, {
  whoami: (ctx) => whoami(ctx),
});
