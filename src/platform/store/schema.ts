import type { Generated } from 'kysely';

/**
 * The platform's tables as the query builder sees them (Kysely): one interface per table, column names as stored.
 * Text holds identifiers, ISO timestamps and JSON; integers hold counts and flags (0/1) on both backends, so that a
 * row reads the same from either. Columns with a default (or the row number) are `Generated`: an insert may omit them.
 * Kept in step with the migrations by test/platform/schema-types.test.ts.
 */
export interface AccountsTable {
  id: string;
  email: string;
  email_verified: Generated<number>;
  password_hash: string | null;
  /** The organization whose import set the password (migration 12); null: the person's own, or none. */
  password_imported_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  environment: string;
  prefix: string;
  last4: string;
  secret_hash: string;
  project_ids: string | null;
  permissions: string | null;
  multi_org: Generated<number>;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  user_id: string;
  org_id: string;
  ip_address: string | null;
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  session_id: string | null;
  method: Generated<string>;
  amr: string | null;
}

export interface DeviceCodesTable {
  device_code_hash: string;
  user_code: string;
  client_id: string;
  requested_scope: string | null;
  requested_org: string | null;
  status: string;
  user_id: string | null;
  org_id: string | null;
  scopes: string | null;
  ip_address: string | null;
  user_agent: string | null;
  poll_interval: number;
  last_polled_at: string | null;
  created_at: string;
  expires_at: string;
  session_id: string | null;
  method: string | null;
  amr: string | null;
}

export interface DomainsTable {
  id: string;
  org_id: string;
  domain: string;
  status: string;
  token: string;
  created_at: string;
  verified_at: string | null;
}

export interface EnvironmentsTable {
  id: string;
  project_id: string;
  name: string;
  config: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface EventProjectsTable {
  event_id: string;
  project_id: string;
}

export interface EventsTable {
  id: string;
  org_id: string;
  type: string;
  actor_type: string;
  actor_id: string;
  target_type: string | null;
  target_id: string | null;
  request_id: string | null;
  data: Generated<string>;
  created_at: string;
  /** The order events were committed in (migration 13); PostgreSQL also orders by `tx` first. */
  seq: Generated<number>;
}

export interface InvitationsTable {
  id: string;
  org_id: string;
  user_id: string;
  email: string;
  name: string | null;
  role: string;
  teams: Generated<string>;
  status: string;
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

export interface LoginAttemptsTable {
  key: string;
  failures: number;
  last_failure_at: string;
  locked_until: string | null;
}

export interface LoginTicketsTable {
  ticket_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  stage: Generated<string>;
  amr: string | null;
  org_id: string | null;
}

export interface MfaFactorsTable {
  id: string;
  account_id: string;
  type: string;
  name: string;
  secret: string | null;
  last_step: number | null;
  credential_id: string | null;
  public_key: string | null;
  sign_count: number | null;
  transports: string | null;
  backed_up: number | null;
  confirmed_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface MfaRecoveryCodesTable {
  factor_id: string;
  code_hash: string;
  used_at: string | null;
}

export interface WebauthnChallengesTable {
  challenge_hash: string;
  account_id: string | null;
  purpose: string;
  created_at: string;
  expires_at: string;
}

/** Members of an organization in one status, kept by triggers on `org_users` (store/migrations/0007_member_counts.ts). */
export interface MemberCountsTable {
  org_id: string;
  status: string;
  members: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface OrgUsersTable {
  seq: Generated<number>;
  org_id: string;
  user_id: string;
  email: string;
  name: string | null;
  avatar_url: string | null;
  role: string;
  status: string;
  metadata: Generated<string>;
  last_login_at: string | null;
  joined_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  slug: string;
  plan: string;
  mfa: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface OutboxTable {
  id: string;
  org_id: string | null;
  to_addr: string;
  subject: string;
  text: string;
  links: Generated<string>;
  created_at: string;
  sent_at: string | null;
  attempts: Generated<number>;
  next_attempt_at: string | null;
  lease_owner: string | null;
  last_error: string | null;
  failed_at: string | null;
}

export interface WebhooksTable {
  id: string;
  org_id: string;
  url: string;
  /** A JSON array of event types; `[]`: every type. */
  events: string;
  description: string | null;
  enabled: number;
  disabled_reason: string | null;
  failing_since: string | null;
  /** Sealed (secret-box.ts). */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** Until when a server holds the endpoint's one attempt in flight; null when none does. */
  busy_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  payload: string;
  attempts: Generated<number>;
  next_attempt_at: string | null;
  lease_owner: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  created_at: string;
}

export interface ProjectMembersTable {
  project_id: string;
  org_id: string;
  user_id: string;
  role: string;
  created_at: string;
}

export interface ProjectsTable {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  description: string | null;
  status: string;
  settings: string;
  created_at: string;
  updated_at: string;
}

export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  client_id: string;
  scopes: string;
  created_at: string;
  used_at: string | null;
}

export interface ScimResourcesTable {
  org_id: string;
  kind: string;
  id: string;
  external_id: string | null;
  attributes: Generated<string>;
}

export interface ScimTokensTable {
  id: string;
  org_id: string;
  name: string;
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  requests: Generated<number>;
  failures: Generated<number>;
  last_failure: string | null;
}

export interface SessionCutoffsTable {
  org_id: string;
  user_id: string;
  cut_at: string;
  kept_session_id: string | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  org_id: string;
  client_id: string | null;
  ip_address: string | null;
  user_agent: string | null;
  created_at: string;
  last_active: string;
  expires_at: string | null;
  revoked_at: string | null;
  method: Generated<string>;
  amr: string | null;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
  retired_at: string | null;
}

export interface SsoAssertionsTable {
  org_id: string;
  assertion_id: string;
  expires_at: string;
}

export interface SsoConfigsTable {
  org_id: string;
  protocol: string;
  provider: string;
  enabled: number;
  metadata_url: string | null;
  metadata_xml: string | null;
  issuer: string | null;
  client_id: string | null;
  client_secret: string | null;
  attribute_mapping: string;
  domains: string;
  created_at: string;
  updated_at: string;
  allow_idp_initiated: Generated<number>;
  default_role: Generated<string>;
  idp_entity_id: string | null;
  idp_sso_url: string | null;
  idp_certificates: Generated<string>;
  oidc_metadata: string | null;
  fetched_at: string | null;
}

export interface SsoDomainsTable {
  domain: string;
  org_id: string;
}

export interface SsoIdentitiesTable {
  org_id: string;
  subject: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
}

export interface SsoRequestsTable {
  id: string;
  org_id: string;
  protocol: string;
  continuation: string;
  sealed: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SsoTestsTable {
  id: string;
  org_id: string;
  status: string;
  result: string | null;
  created_at: string;
  expires_at: string;
}

export interface TeamMembersTable {
  team_id: string;
  org_id: string;
  user_id: string;
  created_at: string;
}

export interface TeamsTable {
  id: string;
  org_id: string;
  name: string;
  created_at: string;
}

export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  authorization_codes: AuthorizationCodesTable;
  device_codes: DeviceCodesTable;
  domains: DomainsTable;
  environments: EnvironmentsTable;
  event_projects: EventProjectsTable;
  events: EventsTable;
  invitations: InvitationsTable;
  login_attempts: LoginAttemptsTable;
  login_tickets: LoginTicketsTable;
  member_counts: MemberCountsTable;
  meta: MetaTable;
  mfa_factors: MfaFactorsTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  org_users: OrgUsersTable;
  organizations: OrganizationsTable;
  outbox: OutboxTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  project_members: ProjectMembersTable;
  projects: ProjectsTable;
  refresh_tokens: RefreshTokensTable;
  scim_resources: ScimResourcesTable;
  scim_tokens: ScimTokensTable;
  session_cutoffs: SessionCutoffsTable;
  sessions: SessionsTable;
  signing_keys: SigningKeysTable;
  sso_assertions: SsoAssertionsTable;
  sso_configs: SsoConfigsTable;
  sso_domains: SsoDomainsTable;
  sso_identities: SsoIdentitiesTable;
  sso_requests: SsoRequestsTable;
  sso_tests: SsoTestsTable;
  team_members: TeamMembersTable;
  teams: TeamsTable;
  webauthn_challenges: WebauthnChallengesTable;
}
