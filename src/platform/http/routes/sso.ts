import { sso } from '../../../contract/endpoints/sso.js';
import {
  deleteSso,
  getSso,
  getSsoTest,
  putSso,
  refreshSso,
  ssoServiceProvider,
  startSsoTest,
} from '../../operations/sso.js';
import { bind } from '../route.js';

export const ssoRoutes = bind(sso, {
  get: (ctx) => getSso(ctx),
  put: (ctx, { params, body }) => putSso(ctx, params.orgId, body),
  serviceProvider: (ctx, { params }) => ssoServiceProvider(ctx, params.orgId),
  refresh: (ctx, { params }) => refreshSso(ctx, params.orgId),
  startTest: (ctx, { params }) => startSsoTest(ctx, params.orgId),
  getTest: (ctx, { params }) => getSsoTest(ctx, params.orgId, params.testId),
  delete: (ctx, { params }) => deleteSso(ctx, params.orgId),
});
