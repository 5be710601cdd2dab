import { domains } from '../../../contract/endpoints/domains.js';
import { createDomain, deleteDomain, getDomain, listDomains, verifyDomain } from '../../operations/domains.js';
import { bind } from '../route.js';

export const domainsRoutes = bind(domains, {
  list: (ctx, { params }) => listDomains(ctx, params.orgId),
  create: (ctx, { params, body }) => createDomain(ctx, params.orgId, body),
  get: (ctx, { params }) => getDomain(ctx, params.domainId),
  verify: (ctx, { params }) => verifyDomain(ctx, params.domainId),
  delete: (ctx, { params }) => deleteDomain(ctx, params.domainId),
});
