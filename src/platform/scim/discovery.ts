// What this SCIM service provider supports, and its resources' schemas (RFC 7643 §5–7): read by identity providers
// when a connection is set up.
import type { Ctx } from '../context.js';
import { GROUP_SCHEMA } from './groups.js';
import { ENTERPRISE_SCHEMA, listResponse, scimBase, USER_SCHEMA } from './users.js';

export function serviceProviderConfig(ctx: Ctx) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: 100 },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'A SCIM token of the organization (plat scim tokens create), as `Authorization: Bearer scim_…`',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${scimBase(ctx)}/ServiceProviderConfig` },
  };
}

export function resourceTypes(ctx: Ctx) {
  const base = scimBase(ctx);
  const types = [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A member of the organization',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A team of the organization',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
  return listResponse(types, 1, types.length);
}

/** One attribute's description: a string unless said otherwise. */
function attribute(name: string, more: Record<string, unknown> = {}) {
  return {
    name,
    type: 'string',
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...more,
  };
}

export function schemas(ctx: Ctx) {
  const base = scimBase(ctx);
  const sub = (names: string[]) => names.map((n) => attribute(n));
  const list = [
    {
      id: USER_SCHEMA,
      name: 'User',
      description: 'A member of the organization: userName is the e-mail address',
      attributes: [
        attribute('userName', { required: true, uniqueness: 'server', mutability: 'immutable' }),
        attribute('name', {
          type: 'complex',
          subAttributes: sub([
            'formatted',
            'familyName',
            'givenName',
            'middleName',
            'honorificPrefix',
            'honorificSuffix',
          ]),
        }),
        attribute('displayName'),
        attribute('externalId', { caseExact: true }),
        attribute('active', { type: 'boolean' }),
        attribute('emails', {
          type: 'complex',
          multiValued: true,
          subAttributes: [...sub(['value', 'type', 'display']), attribute('primary', { type: 'boolean' })],
        }),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` },
    },
    {
      id: ENTERPRISE_SCHEMA,
      name: 'EnterpriseUser',
      description: 'Kept in the member’s metadata under these names',
      attributes: [
        ...sub(['employeeNumber', 'costCenter', 'organization', 'division', 'department']),
        attribute('manager', { type: 'complex', subAttributes: sub(['value']) }),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${ENTERPRISE_SCHEMA}` },
    },
    {
      id: GROUP_SCHEMA,
      name: 'Group',
      description: 'A team of the organization',
      attributes: [
        attribute('displayName', { required: true, uniqueness: 'server' }),
        attribute('externalId', { caseExact: true }),
        attribute('members', { type: 'complex', multiValued: true, subAttributes: sub(['value', 'type', '$ref']) }),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_SCHEMA}` },
    },
  ].map((s) => ({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], ...s }));
  return listResponse(list, 1, list.length);
}
