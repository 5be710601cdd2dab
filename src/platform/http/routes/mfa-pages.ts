import { mfaPages } from '../../../contract/endpoints/mfa-pages.js';
import { passkeyScript, webauthnBrowserScript } from '../../auth/assets.js';
import { mfaPageGet, mfaPageSubmit } from '../../auth/mfa-page.js';
import { bind } from '../route.js';

export const mfaPagesRoutes = bind(mfaPages, {
  passkeyScript,
  webauthnLibrary: webauthnBrowserScript,
  mfaPage: mfaPageGet,
  mfaPageSubmit,
});
