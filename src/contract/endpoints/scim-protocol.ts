import * as z from 'zod';
import { idParam, lazySchema } from '../common.js';
import type { Answer } from '../endpoint.js';
import { endpoint } from '../endpoint.js';

// The SCIM 2.0 service provider of each organization (RFC 7643, 7644; docs/scim.md): what identity providers call
// with a SCIM token. Its requests and answers are SCIM's own (`application/scim+json`, SCIM's error schema); the
// handlers are in src/platform/scim/.

const tag = 'scim';

const orgParams = lazySchema(() => z.strictObject({ orgId: idParam('org') }));
/** A SCIM id as a client sends it: anything up to 200 characters (an unknown one is a `404`). */
const resourceParams = lazySchema(() => z.strictObject({ orgId: idParam('org'), id: z.string().min(1).max(200) }));
const listQuery = lazySchema(() =>
  z.looseObject({
    filter: z.string().optional().meta({ description: 'RFC 7644 §3.4.2.2: eq, ne, co, sw, pr, and, or, not, [ ]' }),
    startIndex: z.string().optional().meta({ description: '1-based index of the first result (default 1)' }),
    count: z.string().optional().meta({ description: 'Results per page, at most 100 (default 100)' }),
    attributes: z.string().optional(),
    excludedAttributes: z.string().optional().meta({ description: '`members` leaves groups’ members out' }),
  }),
);
const resource = lazySchema(() => z.looseObject({})).meta({
  description: 'A SCIM resource (RFC 7643): its attributes as the schema says',
});

const ok = (description: string): Answer => ({ description, body: 'scim' });
const failure = (description: string): Answer => ({ description, body: 'scim-error' });
/** What any SCIM request may be answered besides its success. */
const FAILURES: Record<number, Answer> = {
  400: failure('Malformed request, bad filter or bad value (`scimType` says which)'),
  401: failure('No SCIM token, or not one of this organization'),
  403: failure('Refused: an owner is never deprovisioned through SCIM'),
  404: failure('No such resource in this organization'),
  409: failure('Uniqueness: the userName or displayName is taken'),
  429: {
    description: "The organization's SCIM bucket is empty; see `Retry-After`",
    body: 'scim-error',
    headers: ['Retry-After'],
  },
  500: failure('An unexpected failure (reported in the server log, never here)'),
};
const read = (description: string) => ({ 200: ok(description), ...FAILURES });

function scimEndpoint<const P extends string, const M extends 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'>(spec: {
  method: M;
  path: P;
  operationId: string;
  summary: string;
  description?: string;
  answers: Readonly<Record<number, Answer>>;
  withId?: boolean;
  list?: boolean;
  body?: boolean;
}) {
  return endpoint({
    method: spec.method,
    path: `/organizations/{orgId}/scim${spec.path}` as `/organizations/{orgId}/scim${P}`,
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description && { description: spec.description }),
    tag,
    access: 'scim',
    limit: 'scim',
    params: spec.withId ? resourceParams : orgParams,
    ...(spec.list && { query: listQuery }),
    ...(spec.body && { body: resource }),
    answers: spec.answers,
  });
}

export const scimProtocol = {
  serviceProviderConfig: scimEndpoint({
    method: 'GET',
    path: '/ServiceProviderConfig',
    operationId: 'scimServiceProviderConfig',
    summary: 'What this SCIM service provider supports (RFC 7643 §5)',
    answers: read('The configuration'),
  }),
  resourceTypes: scimEndpoint({
    method: 'GET',
    path: '/ResourceTypes',
    operationId: 'scimResourceTypes',
    summary: 'The resource types: User (with the Enterprise User extension) and Group (RFC 7643 §6)',
    answers: read('A list response of the resource types'),
  }),
  schemas: scimEndpoint({
    method: 'GET',
    path: '/Schemas',
    operationId: 'scimSchemas',
    summary: 'The schemas of the resources, attribute by attribute (RFC 7643 §7)',
    answers: read('A list response of the schemas'),
  }),
  listUsers: scimEndpoint({
    method: 'GET',
    path: '/Users',
    operationId: 'scimListUsers',
    summary: "The organization's members as SCIM users, filtered and paged",
    description:
      'Filters on `userName`, `externalId`, `emails.value`, `displayName`, `active` (and the rest of the schema).',
    list: true,
    answers: read('A list response'),
  }),
  createUser: scimEndpoint({
    method: 'POST',
    path: '/Users',
    operationId: 'scimCreateUser',
    summary: 'Provision a member: active, verified, role member, no e-mail sent',
    description:
      'The userName (an e-mail) must be of a domain the organization verified (else 400 invalidValue); one already a ' +
      'member is a 409 uniqueness.',
    body: true,
    answers: { 201: { ...ok('The user created'), headers: ['Location'] }, ...FAILURES },
  }),
  getUser: scimEndpoint({
    method: 'GET',
    path: '/Users/{id}',
    operationId: 'scimGetUser',
    summary: 'A member as a SCIM user',
    withId: true,
    answers: read('The user'),
  }),
  replaceUser: scimEndpoint({
    method: 'PUT',
    path: '/Users/{id}',
    operationId: 'scimReplaceUser',
    summary: "Replace a user's attributes; active false suspends (everything revoked), true unsuspends",
    withId: true,
    body: true,
    answers: read('The user'),
  }),
  patchUser: scimEndpoint({
    method: 'PATCH',
    path: '/Users/{id}',
    operationId: 'scimPatchUser',
    summary: 'Patch a user (add, replace, remove; the shapes Okta and Microsoft Entra ID send)',
    withId: true,
    body: true,
    answers: { ...read('The user'), 204: { description: 'Done' } },
  }),
  deleteUser: scimEndpoint({
    method: 'DELETE',
    path: '/Users/{id}',
    operationId: 'scimDeleteUser',
    summary: 'Remove the member from the organization (owners: 403)',
    withId: true,
    answers: { 204: { description: 'Removed' }, ...FAILURES },
  }),
  listGroups: scimEndpoint({
    method: 'GET',
    path: '/Groups',
    operationId: 'scimListGroups',
    summary: "The organization's teams as SCIM groups, filtered and paged",
    list: true,
    answers: read('A list response'),
  }),
  createGroup: scimEndpoint({
    method: 'POST',
    path: '/Groups',
    operationId: 'scimCreateGroup',
    summary: 'Create a team with its members',
    body: true,
    answers: { 201: { ...ok('The group created'), headers: ['Location'] }, ...FAILURES },
  }),
  getGroup: scimEndpoint({
    method: 'GET',
    path: '/Groups/{id}',
    operationId: 'scimGetGroup',
    summary: 'A team as a SCIM group',
    withId: true,
    list: true,
    answers: read('The group'),
  }),
  replaceGroup: scimEndpoint({
    method: 'PUT',
    path: '/Groups/{id}',
    operationId: 'scimReplaceGroup',
    summary: "Replace a group's name and members",
    withId: true,
    body: true,
    answers: read('The group'),
  }),
  patchGroup: scimEndpoint({
    method: 'PATCH',
    path: '/Groups/{id}',
    operationId: 'scimPatchGroup',
    summary: 'Patch a group: rename, add or remove members',
    withId: true,
    body: true,
    answers: { ...read('The group'), 204: { description: 'Done' } },
  }),
  deleteGroup: scimEndpoint({
    method: 'DELETE',
    path: '/Groups/{id}',
    operationId: 'scimDeleteGroup',
    summary: 'Delete the team (its members stay in the organization)',
    withId: true,
    answers: { 204: { description: 'Deleted' }, ...FAILURES },
  }),
} as const;
