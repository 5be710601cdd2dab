import { meta } from '../../../contract/endpoints/meta.js';
import { packageVersion } from '../../../contract/version.js';

import { bind } from '../route.js';

export const metaRoutes = bind(meta, {
  health: (ctx, c) => c.json({ status: 'ok', version: packageVersion(), mode: ctx.mode }),
});
