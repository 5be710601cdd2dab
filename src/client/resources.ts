import type { ApiKey, ApiKeyCreate, CreatedApiKey } from '../contract/api-keys.js';
import type { Whoami } from '../contract/auth.js';
import type { List, PagingQuery } from '../contract/common.js';
import type { Event, EventListQuery } from '../contract/events.js';
import type { Organization, OrganizationCreate, OrganizationPatch } from '../contract/organizations.js';
import type {
  Environment,
  EnvironmentCreate,
  EnvironmentPatch,
  Member,
  MemberAdd,
  MemberPatch,
  Project,
  ProjectCreate,
  ProjectListQuery,
  ProjectPatch,
  Promote,
} from '../contract/projects.js';
import type { Session } from '../contract/sessions.js';
import type { SsoConfig, SsoPut, SsoServiceProvider, SsoTest } from '../contract/sso.js';
import type { Team, TeamCreate, TeamMember } from '../contract/teams.js';
import type {
  Invitation,
  InvitationCreate,
  InvitationListQuery,
  ListedUser,
  User,
  UserBatch,
  UserBatchReply,
  UserListQuery,
  UserPatch,
} from '../contract/users.js';

/** Query-string values; `undefined` ones are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** What the resource methods need from the client. */
export interface Requester {
  request<T>(method: string, path: string, opts?: { query?: Query; body?: unknown }): Promise<T>;
}

/** A list that is not paginated (a project's environments, a user's sessions, the caller's organizations). */
export type PlainList<T> = { data: T[] };

/** One path segment, escaped: ids come from users and may hold anything. */
const seg = (value: string) => encodeURIComponent(value);

/** Typed methods, one per API operation, over a requester. */
export function createResources(r: Requester) {
  const get = <T>(path: string, query?: Query) => r.request<T>('GET', path, { query });
  const post = <T>(path: string, body?: unknown) => r.request<T>('POST', path, { body });
  const patch = <T>(path: string, body: unknown) => r.request<T>('PATCH', path, { body });
  const put = <T>(path: string, body: unknown) => r.request<T>('PUT', path, { body });
  const del = (path: string, query?: Query) => r.request<void>('DELETE', path, { query });

  return {
    organizations: {
      list: () => get<PlainList<Organization>>('/organizations'),
      get: (id: string) => get<Organization>(`/organizations/${seg(id)}`),
      create: (body: OrganizationCreate) => post<Organization>('/organizations', body),
      update: (id: string, body: OrganizationPatch) => patch<Organization>(`/organizations/${seg(id)}`, body),
    },
    users: {
      list: (orgId: string, query: UserListQuery = {}) =>
        get<List<ListedUser>>(`/organizations/${seg(orgId)}/users`, query),
      get: (id: string) => get<User>(`/users/${seg(id)}`),
      invite: (orgId: string, body: InvitationCreate) => post<Invitation>(`/organizations/${seg(orgId)}/users`, body),
      batch: (orgId: string, body: UserBatch) => post<UserBatchReply>(`/organizations/${seg(orgId)}/users/batch`, body),
      update: (id: string, body: UserPatch) => patch<User>(`/users/${seg(id)}`, body),
      suspend: (id: string) => post<User>(`/users/${seg(id)}/suspend`),
      unsuspend: (id: string) => post<User>(`/users/${seg(id)}/unsuspend`),
      delete: (id: string) => del(`/users/${seg(id)}`),
    },
    invitations: {
      list: (orgId: string, query: InvitationListQuery = {}) =>
        get<List<Invitation>>(`/organizations/${seg(orgId)}/invitations`, query),
      get: (id: string) => get<Invitation>(`/invitations/${seg(id)}`),
      resend: (id: string) => post<Invitation>(`/invitations/${seg(id)}/resend`),
      revoke: (id: string) => del(`/invitations/${seg(id)}`),
    },
    teams: {
      list: (orgId: string, query: PagingQuery = {}) => get<List<Team>>(`/organizations/${seg(orgId)}/teams`, query),
      get: (id: string) => get<Team>(`/teams/${seg(id)}`),
      create: (orgId: string, body: TeamCreate) => post<Team>(`/organizations/${seg(orgId)}/teams`, body),
      delete: (id: string) => del(`/teams/${seg(id)}`),
      members: (id: string, query: PagingQuery = {}) => get<List<TeamMember>>(`/teams/${seg(id)}/members`, query),
    },
    projects: {
      list: (orgId: string, query: ProjectListQuery = {}) =>
        get<List<Project>>(`/organizations/${seg(orgId)}/projects`, query),
      get: (id: string) => get<Project>(`/projects/${seg(id)}`),
      create: (orgId: string, body: ProjectCreate) => post<Project>(`/organizations/${seg(orgId)}/projects`, body),
      update: (id: string, body: ProjectPatch) => patch<Project>(`/projects/${seg(id)}`, body),
      archive: (id: string) => post<Project>(`/projects/${seg(id)}/archive`),
      unarchive: (id: string) => post<Project>(`/projects/${seg(id)}/unarchive`),
      suspend: (id: string) => post<Project>(`/projects/${seg(id)}/suspend`),
      resume: (id: string) => post<Project>(`/projects/${seg(id)}/resume`),
      delete: (id: string) => del(`/projects/${seg(id)}`),
    },
    members: {
      list: (projectId: string, query: PagingQuery = {}) =>
        get<List<Member>>(`/projects/${seg(projectId)}/members`, query),
      get: (projectId: string, userId: string) => get<Member>(`/projects/${seg(projectId)}/members/${seg(userId)}`),
      add: (projectId: string, body: MemberAdd) => post<Member>(`/projects/${seg(projectId)}/members`, body),
      update: (projectId: string, userId: string, body: MemberPatch) =>
        patch<Member>(`/projects/${seg(projectId)}/members/${seg(userId)}`, body),
      remove: (projectId: string, userId: string) => del(`/projects/${seg(projectId)}/members/${seg(userId)}`),
    },
    environments: {
      list: (projectId: string) => get<PlainList<Environment>>(`/projects/${seg(projectId)}/environments`),
      get: (projectId: string, name: string) =>
        get<Environment>(`/projects/${seg(projectId)}/environments/${seg(name)}`),
      create: (projectId: string, body: EnvironmentCreate) =>
        post<Environment>(`/projects/${seg(projectId)}/environments`, body),
      update: (projectId: string, name: string, body: EnvironmentPatch) =>
        patch<Environment>(`/projects/${seg(projectId)}/environments/${seg(name)}`, body),
      delete: (projectId: string, name: string) => del(`/projects/${seg(projectId)}/environments/${seg(name)}`),
      promote: (projectId: string, body: Promote) =>
        post<Environment>(`/projects/${seg(projectId)}/environments/promote`, body),
    },
    sessions: {
      list: (userId: string) => get<PlainList<Session>>(`/users/${seg(userId)}/sessions`),
      revoke: (userId: string, sessionId: string) => del(`/users/${seg(userId)}/sessions/${seg(sessionId)}`),
      revokeAll: (userId: string, keepCurrent: boolean) =>
        r.request<{ revoked: number }>('DELETE', `/users/${seg(userId)}/sessions`, {
          query: { keepCurrent: keepCurrent ? 'true' : 'false' },
        }),
    },
    apiKeys: {
      list: (orgId: string, query: PagingQuery = {}) =>
        get<List<ApiKey>>(`/organizations/${seg(orgId)}/api-keys`, query),
      get: (id: string) => get<ApiKey>(`/api-keys/${seg(id)}`),
      create: (orgId: string, body: ApiKeyCreate) => post<CreatedApiKey>(`/organizations/${seg(orgId)}/api-keys`, body),
      revoke: (id: string) => del(`/api-keys/${seg(id)}`),
    },
    sso: {
      get: (orgId: string) => get<SsoConfig>(`/organizations/${seg(orgId)}/sso`),
      put: (orgId: string, body: SsoPut) => put<SsoConfig>(`/organizations/${seg(orgId)}/sso`, body),
      delete: (orgId: string) => del(`/organizations/${seg(orgId)}/sso`),
      refresh: (orgId: string) => post<SsoConfig>(`/organizations/${seg(orgId)}/sso/refresh`, undefined),
      serviceProvider: (orgId: string) => get<SsoServiceProvider>(`/organizations/${seg(orgId)}/sso/service-provider`),
      startTest: (orgId: string) => post<SsoTest>(`/organizations/${seg(orgId)}/sso/tests`, undefined),
      getTest: (orgId: string, testId: string) => get<SsoTest>(`/organizations/${seg(orgId)}/sso/tests/${seg(testId)}`),
    },
    events: {
      list: (orgId: string, query: EventListQuery = {}) =>
        get<List<Event>>(`/organizations/${seg(orgId)}/events`, query),
    },
    auth: {
      whoami: () => get<Whoami>('/auth/whoami'),
    },
  };
}

/** The typed resource groups a `PlatformClient` carries. */
export type Resources = ReturnType<typeof createResources>;
