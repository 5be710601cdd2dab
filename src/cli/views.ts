import { type Column, col, type View } from './output/view.js';

/** How each resource of the API is shown in tables, TSV and CSV. `--json` always shows the whole record. */

const created = col('CREATED', 'createdAt');
const userRef = (prefix = ''): Column[] => [
  { header: `${prefix}ID`, get: (r) => r.user?.id },
  { header: 'EMAIL', get: (r) => r.user?.email },
  { header: 'NAME', get: (r) => r.user?.name },
];

export const userView: View = {
  columns: [
    col('ID', 'id'),
    col('EMAIL', 'email'),
    col('NAME', 'name'),
    col('ROLE', 'role'),
    col('STATUS', 'status', { status: true }),
    created,
  ],
  detail: [
    col('ID', 'id'),
    col('EMAIL', 'email'),
    col('NAME', 'name'),
    col('ROLE', 'role'),
    col('STATUS', 'status', { status: true }),
    col('EMAIL VERIFIED', 'emailVerified'),
    col('AVATAR', 'avatarUrl'),
    col('METADATA', 'metadata'),
    created,
    col('UPDATED', 'updatedAt'),
    col('LAST LOGIN', 'lastLoginAt'),
  ],
};

export const invitationView: View = {
  columns: [
    col('ID', 'id'),
    col('EMAIL', 'email'),
    col('ROLE', 'role'),
    col('STATUS', 'status', { status: true }),
    col('USER', 'userId'),
    col('EXPIRES', 'expiresAt'),
  ],
};

export const organizationView: View = {
  columns: [col('ID', 'id'), col('NAME', 'name'), col('SLUG', 'slug'), col('PLAN', 'plan'), created],
  /** One organization also shows its second-factor policy (docs/mfa.md). */
  detail: [
    col('ID', 'id'),
    col('NAME', 'name'),
    col('SLUG', 'slug'),
    col('PLAN', 'plan'),
    col('MFA', 'mfa'),
    created,
    col('UPDATED', 'updatedAt'),
  ],
};

export const teamView: View = { columns: [col('ID', 'id'), col('NAME', 'name'), created] };

export const teamMemberView: View = { columns: [...userRef('USER '), col('ADDED', 'createdAt')], id: (r) => r.user.id };

export const projectView: View = {
  columns: [
    col('ID', 'id'),
    col('SLUG', 'slug'),
    col('NAME', 'name'),
    col('STATUS', 'status', { status: true }),
    { header: 'DEFAULT ENV', get: (r) => r.settings?.defaultEnvironment },
    created,
  ],
  detail: [
    col('ID', 'id'),
    col('SLUG', 'slug'),
    col('NAME', 'name'),
    col('DESCRIPTION', 'description'),
    col('STATUS', 'status', { status: true }),
    col('ORGANIZATION', 'organizationId'),
    { header: 'DEFAULT ENV', get: (r) => r.settings?.defaultEnvironment },
    { header: 'AUTO SCALING', get: (r) => r.settings?.autoScaling },
    { header: 'NOTIFICATIONS', get: (r) => r.settings?.notificationsEnabled },
    created,
    col('UPDATED', 'updatedAt'),
  ],
};

export const memberView: View = {
  columns: [...userRef('USER '), col('ROLE', 'role'), col('ADDED', 'createdAt')],
  id: (r) => r.user.id,
};

export const environmentView: View = {
  columns: [
    col('NAME', 'name'),
    { header: 'KEYS', get: (r) => Object.keys(r.config ?? {}).join(',') },
    col('UPDATED', 'updatedAt'),
  ],
  detail: [
    col('ID', 'id'),
    col('PROJECT', 'projectId'),
    col('NAME', 'name'),
    col('CONFIG', 'config'),
    created,
    col('UPDATED', 'updatedAt'),
  ],
  id: (r) => r.name,
};

export const sessionView: View = {
  columns: [
    col('ID', 'id'),
    col('USER', 'userId'),
    col('IP', 'ipAddress'),
    col('USER AGENT', 'userAgent'),
    col('LAST ACTIVE', 'lastActive'),
    { header: 'CURRENT', get: (r) => (r.current ? 'yes' : '') },
  ],
};

/** A key's state at `now`: revoked, expired (past its expiry: the API refuses it), or active. */
function keyState(r: { revokedAt: string | null; expiresAt: string | null }, now: Date): string {
  if (r.revokedAt) return 'revoked';
  return r.expiresAt !== null && Date.parse(r.expiresAt) <= now.getTime() ? 'expired' : 'active';
}

/** API keys as listed at `now` (the CLI's clock): their state is derived from it. */
export function apiKeyView(now: Date): View {
  return {
    columns: [
      col('ID', 'id'),
      col('NAME', 'name'),
      col('ENV', 'environment'),
      { header: 'KEY', get: (r) => `${r.prefix}…${r.last4}` },
      { header: 'STATUS', get: (r) => keyState(r, now), status: true },
      created,
      col('EXPIRES', 'expiresAt'),
    ],
  };
}

/** A key just created: the only time its secret is shown. */
export const createdApiKeyView: View = {
  columns: [
    col('ID', 'id'),
    col('NAME', 'name'),
    col('ENV', 'environment'),
    col('SECRET', 'key'),
    col('EXPIRES', 'expiresAt'),
  ],
  detail: [
    col('ID', 'id'),
    col('NAME', 'name'),
    col('ENV', 'environment'),
    col('SECRET', 'key'),
    col('PROJECTS', 'projectIds'),
    col('PERMISSIONS', 'permissions'),
    created,
    col('EXPIRES', 'expiresAt'),
  ],
};

const ssoColumns: View['columns'] = [
  col('PROTOCOL', 'protocol'),
  col('PROVIDER', 'provider'),
  { header: 'ENABLED', get: (r) => (r.enabled ? 'enabled' : 'disabled'), status: true },
  col('METADATA URL', 'metadataUrl'),
  col('ISSUER', 'issuer'),
  col('CLIENT ID', 'clientId'),
  { header: 'CLIENT SECRET', get: (r) => (r.clientSecretSet ? 'set' : '') },
  col('ATTRIBUTES', 'attributeMapping'),
  col('DOMAINS', 'domains'),
];

/** An SSO configuration: a row of its settings; one record shows also what was read from the IdP, and the SP's side. */
export const domainView: View = {
  columns: [
    col('ID', 'id'),
    col('DOMAIN', 'domain'),
    col('STATUS', 'status', { status: true }),
    { header: 'TXT NAME', get: (r) => r.verification?.name },
    { header: 'TXT VALUE', get: (r) => r.verification?.value },
    col('VERIFIED', 'verifiedAt'),
  ],
  detail: [
    col('ID', 'id'),
    col('DOMAIN', 'domain'),
    col('STATUS', 'status', { status: true }),
    { header: 'TXT NAME', get: (r) => r.verification?.name },
    { header: 'TXT VALUE', get: (r) => r.verification?.value },
    created,
    col('VERIFIED', 'verifiedAt'),
  ],
};

export const scimTokenView: View = {
  columns: [col('ID', 'id'), col('NAME', 'name'), created, col('LAST USED', 'lastUsedAt')],
};

export const scimStatusView: View = {
  columns: [
    col('BASE URL', 'baseUrl'),
    col('TOKENS', 'tokens'),
    col('REQUESTS', 'requests'),
    col('FAILURES', 'failures'),
    col('LAST REQUEST', 'lastRequestAt'),
    {
      header: 'LAST FAILURE',
      get: (r) =>
        r.lastFailure &&
        `${r.lastFailure.at} ${r.lastFailure.method} ${r.lastFailure.path} ${r.lastFailure.status}` +
          `${r.lastFailure.scimType ? ` ${r.lastFailure.scimType}` : ''}: ${r.lastFailure.detail}`,
    },
    col('USERS', 'users'),
    col('GROUPS', 'groups'),
  ],
};

export const createdScimTokenView: View = {
  columns: [col('ID', 'id'), col('NAME', 'name'), col('TOKEN', 'token')],
};

export const ssoView: View = {
  columns: ssoColumns,
  detail: [
    ...ssoColumns,
    { header: 'IDP-INITIATED', get: (r) => (r.allowIdpInitiated ? 'allowed' : 'refused') },
    col('DEFAULT ROLE', 'defaultRole'),
    col('IDP ENTITY ID', 'idpEntityId'),
    col('IDP SIGN-IN URL', 'idpSsoUrl'),
    {
      header: 'CERTIFICATES',
      get: (r) =>
        r.certificates.map((c: { fingerprint: string; notAfter: string }) => `${c.fingerprint} (until ${c.notAfter})`),
    },
    col('FETCHED', 'metadataFetchedAt'),
    col('SP ENTITY ID', 'spEntityId'),
    col('ACS URL', 'acsUrl'),
    col('REDIRECT URI', 'redirectUri'),
  ],
  id: (r) => r.organizationId,
};

/** What a test sign-in received (`plat sso test`): the mapped fields, then every attribute as it came. */
export const ssoTestView: View = {
  columns: [
    { header: 'SUBJECT', get: (r) => r.profile?.subject },
    { header: 'EMAIL', get: (r) => r.profile?.mapped.email },
    { header: 'NAME', get: (r) => r.profile?.mapped.name },
    { header: 'METADATA', get: (r) => r.profile?.mapped.metadata },
    {
      header: 'ATTRIBUTES',
      get: (r) =>
        Object.entries((r.profile?.attributes ?? {}) as Record<string, string[]>).map(
          ([k, v]) => `${k}=${v.join('|')}`,
        ),
    },
  ],
  id: (r) => r.id,
};

/** What the identity provider's administrator enters: `plat sso sp`. */
export const ssoServiceProviderView: View = {
  columns: [
    col('SP ENTITY ID', 'spEntityId'),
    col('ACS URL', 'acsUrl'),
    col('SP METADATA URL', 'spMetadataUrl'),
    col('OIDC REDIRECT URI', 'redirectUri'),
  ],
  detail: [
    col('SP ENTITY ID', 'spEntityId'),
    col('ACS URL', 'acsUrl'),
    col('SP METADATA URL', 'spMetadataUrl'),
    col('OIDC REDIRECT URI', 'redirectUri'),
  ],
  id: (r) => r.spEntityId,
};

export const eventView: View = {
  columns: [
    col('ID', 'id'),
    col('TYPE', 'type'),
    { header: 'ACTOR', get: (r) => `${r.actor.type}:${r.actor.id}` },
    { header: 'TARGET', get: (r) => (r.target ? `${r.target.type}:${r.target.id}` : '') },
    created,
  ],
};

export const mailView: View = {
  columns: [
    col('ID', 'id'),
    col('TO', 'to'),
    col('SUBJECT', 'subject'),
    { header: 'LINK', get: (r) => r.links?.[0] },
    created,
  ],
  detail: [
    col('ID', 'id'),
    col('TO', 'to'),
    col('SUBJECT', 'subject'),
    col('TEXT', 'text'),
    col('LINKS', 'links'),
    created,
  ],
};

const webhookColumns: View['columns'] = [
  col('ID', 'id'),
  col('URL', 'url'),
  { header: 'EVENTS', get: (r) => (r.events.length === 0 ? '*' : r.events) },
  { header: 'STATUS', get: (r) => (r.enabled ? 'enabled' : 'disabled'), status: true },
  col('DESCRIPTION', 'description'),
];

/** A webhook endpoint (never its secret): `*` for one that receives every event type. */
export const webhookView: View = {
  columns: [...webhookColumns, created],
  detail: [
    ...webhookColumns,
    col('DISABLED BECAUSE', 'disabledReason'),
    col('FAILING SINCE', 'failingSince'),
    col('OLD SECRET UNTIL', 'previousSecretExpiresAt'),
    col('ORGANIZATION', 'organizationId'),
    created,
    col('UPDATED', 'updatedAt'),
  ],
};

/** A webhook endpoint just created or given a new secret: the only time its secret is shown. */
export const webhookWithSecretView: View = {
  columns: [col('ID', 'id'), col('URL', 'url'), col('SECRET', 'secret')],
  detail: [...webhookColumns, col('SECRET', 'secret'), col('OLD SECRET UNTIL', 'previousSecretExpiresAt')],
};

/** One delivery of an event to a webhook endpoint: how it went, or when it is tried next. */
export const deliveryView: View = {
  columns: [
    col('ID', 'id'),
    col('EVENT', 'eventId'),
    col('TYPE', 'type'),
    col('STATUS', 'status', { status: true }),
    col('ATTEMPTS', 'attempts'),
    { header: 'LAST ANSWER', get: (r) => r.lastStatusCode ?? r.lastError },
    col('NEXT ATTEMPT', 'nextAttemptAt'),
    created,
  ],
  detail: [
    col('ID', 'id'),
    col('WEBHOOK', 'webhookId'),
    col('EVENT', 'eventId'),
    col('TYPE', 'type'),
    col('STATUS', 'status', { status: true }),
    col('ATTEMPTS', 'attempts'),
    col('LAST STATUS', 'lastStatusCode'),
    col('LAST ERROR', 'lastError'),
    col('NEXT ATTEMPT', 'nextAttemptAt'),
    created,
    col('DELIVERED', 'deliveredAt'),
  ],
};

/** A user's second factor (docs/mfa.md), never its secret; `REMAINING`: a set of recovery codes' unused ones. */
export const mfaFactorView: View = {
  columns: [
    col('ID', 'id'),
    col('TYPE', 'type'),
    col('NAME', 'name'),
    created,
    col('LAST USED', 'lastUsedAt'),
    col('REMAINING', 'remaining'),
  ],
};

/** An authenticator app's enrolment just started: the one time its secret is shown (`-o ids`: the factor's id). */
export const totpEnrollmentView: View = {
  columns: [col('FACTOR', 'factorId'), col('SECRET', 'secret'), col('URI', 'otpauthUri')],
  id: (r) => r.factorId,
};

/** An authenticator app's enrolment finished: the factor, and the recovery codes the first factor comes with. */
export const recoveryCodesView: View = {
  columns: [{ header: 'RECOVERY CODES', get: (r) => r.recoveryCodes }],
};

export const totpVerifiedView: View = {
  columns: [
    { header: 'ID', get: (r) => r.factor.id },
    { header: 'TYPE', get: (r) => r.factor.type },
    { header: 'NAME', get: (r) => r.factor.name },
    { header: 'RECOVERY CODES', get: (r) => r.recoveryCodes },
  ],
  id: (r) => r.factor.id,
};
