import { plainListSchema } from '../common.js';
import { domainCreateSchema, domainSchema } from '../domains.js';
import { endpoint } from '../endpoint.js';
import { domainParams, orgParams } from './params.js';

const tag = 'domains';

export const domains = {
  list: endpoint({
    method: 'GET',
    path: '/organizations/{orgId}/domains',
    operationId: 'listDomains',
    summary: 'List the domains an organization claims, verified or not, by name',
    tag,
    access: 'sso:read',
    params: orgParams,
    response: plainListSchema(domainSchema),
  }),
  create: endpoint({
    method: 'POST',
    path: '/organizations/{orgId}/domains',
    operationId: 'createDomain',
    summary: 'Claim a domain: answers the DNS TXT record that proves it',
    description:
      'The claim is `pending` until `POST /domains/{domainId}/verify` finds the record. Several organizations may ' +
      'claim one domain; the first to verify owns it. A domain this organization already claims, or one another ' +
      'organization has verified, is a `409`; an organization claims at most 50 domains (`409`).',
    tag,
    access: 'sso:write',
    accessNote: 'Owners only (admins lack sso:write).',
    params: orgParams,
    body: domainCreateSchema,
    status: 201,
    location: { get: 'getDomain' },
    response: domainSchema,
  }),
  get: endpoint({
    method: 'GET',
    path: '/domains/{domainId}',
    operationId: 'getDomain',
    summary: 'Get a domain claim of the organization',
    tag,
    access: 'sso:read',
    params: domainParams,
    response: domainSchema,
  }),
  verify: endpoint({
    method: 'POST',
    path: '/domains/{domainId}/verify',
    operationId: 'verifyDomain',
    summary: 'Look the DNS TXT record up now: `verified`, or 422 saying what was found',
    description:
      'Resolves `_plat-challenge.<domain>` (TXT) and looks for `plat-verification=<token>` among its records. ' +
      '`409` when another organization verified the domain first. A verified domain stays verified: verifying it ' +
      'again answers it as it is. Verifying a domain that another organization holds as `legacy` takes it from ' +
      'that organization (and from its single sign-on).',
    tag,
    access: 'sso:write',
    accessNote: 'Owners only (admins lack sso:write).',
    params: domainParams,
    response: domainSchema,
  }),
  delete: endpoint({
    method: 'DELETE',
    path: '/domains/{domainId}',
    operationId: 'deleteDomain',
    summary: 'Give a domain up: its claim, and its place in the single sign-on configuration',
    tag,
    access: 'sso:write',
    accessNote: 'Owners only (admins lack sso:write).',
    params: domainParams,
    status: 204,
  }),
} as const;
