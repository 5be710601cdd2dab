import type { SsoConfig, SsoPutFields, SsoServiceProvider, SsoTest } from '../../contract/sso.js';
import type { BaseCtx, Ctx } from '../context.js';
import { conflict, invalidField, notFound, PlatformError } from '../errors.js';
import { ssoAddresses } from '../sso/addresses.js';
import { type IdpCertificateRecord, isUsable, type StoredSso } from '../store/sso.js';
import type { StoredSsoTest } from '../store/sso-sign-in.js';

/** The record of a stored configuration: the SP's addresses added, the certificates without their PEM. */
export function ssoRecord(ctx: BaseCtx, s: StoredSso): SsoConfig {
  const { oidcMetadata: _, certificates, ...rest } = s;
  return {
    ...rest,
    ...ssoAddresses(ctx.publicUrl, s.organizationId),
    certificates: certificates.map(({ fingerprint, notAfter }) => ({ fingerprint, notAfter })),
  };
}

/**
 * `GET /organizations/{orgId}/sso/service-provider` (owners and admins): the addresses to enter at the identity
 * provider, before any configuration exists here (one is made on each side, the IdP's first).
 */
export function ssoServiceProvider(ctx: Ctx, orgId: string): SsoServiceProvider {
  return { organizationId: orgId, ...ssoAddresses(ctx.publicUrl, orgId) };
}

/** The organization's configuration, or `404`. */
async function loadConfig(ctx: Ctx): Promise<StoredSso> {
  const config = await ctx.stores.sso.get(ctx.principal.orgId);
  if (!config) throw notFound('SSO configuration');
  return config;
}

/**
 * `GET /organizations/{orgId}/sso` (owners and admins). The OIDC client secret shows only as `clientSecretSet`. (The
 * pipeline checks `sso:read` before this runs: a member learns nothing of whether single sign-on is configured.)
 */
export async function getSso(ctx: Ctx): Promise<SsoConfig> {
  return ssoRecord(ctx, await loadConfig(ctx));
}

/**
 * What the schema states but does not check by itself (`422` naming the field). The body's schema already takes one
 * protocol's fields only, and fixes a custom provider's protocol; the document states these too (a `oneOf`), but
 * the server says which field: SAML takes exactly one of the metadata URL or XML; OIDC needs a client secret unless
 * one is already stored for OIDC.
 */
function checkConsistency(input: SsoPutFields, stored: StoredSso | undefined): void {
  if (input.protocol === 'saml') {
    if (input.metadataUrl === undefined && input.metadataXml === undefined) {
      throw invalidField('metadataUrl', 'SAML needs metadataUrl or metadataXml');
    }
    if (input.metadataUrl !== undefined && input.metadataXml !== undefined) {
      throw invalidField('metadataXml', 'give metadataUrl or metadataXml, not both');
    }
  } else if (input.clientSecret === undefined && !(stored?.protocol === 'oidc' && stored.clientSecretSet)) {
    throw invalidField('clientSecret', 'required for the oidc protocol');
  }
}

/** What the platform read from the identity provider for a configuration. */
interface IdentityProvider {
  idpEntityId: string | null;
  idpSsoUrl: string | null;
  certificates: IdpCertificateRecord[];
  oidcMetadata: Record<string, unknown> | null;
  metadataFetchedAt: string | null;
}

/**
 * Reads the identity provider a configuration names (docs/sso.md), fetching what it points at with the bounds of
 * `sso/fetch.ts`: SAML metadata (uploaded, or from its URL), or an OIDC provider's discovery document. `422` naming
 * the field that leads to what is wrong, with what is wrong.
 */
async function readIdentityProvider(
  ctx: BaseCtx,
  c: Pick<SsoPutFields, 'protocol' | 'metadataUrl' | 'metadataXml' | 'issuer'>,
): Promise<IdentityProvider> {
  const { FetchError, fetchDocument } = await import('../sso/fetch.js');
  const fail = (field: string, err: unknown): never => {
    if (err instanceof Error && (err.name === 'FetchError' || err.name === 'MetadataError')) {
      throw invalidField(field, err.message);
    }
    throw err;
  };
  if (c.protocol === 'oidc') {
    const { discoverProvider } = await import('../sso/oidc-discovery.js');
    try {
      const oidcMetadata = await discoverProvider(c.issuer as string);
      return { idpEntityId: null, idpSsoUrl: null, certificates: [], oidcMetadata, metadataFetchedAt: ctx.now() };
    } catch (err) {
      return fail('issuer', err);
    }
  }
  const { parseIdpMetadata } = await import('../sso/saml-metadata.js');
  let xml = c.metadataXml;
  if (c.metadataUrl !== undefined) {
    try {
      xml = await fetchDocument(c.metadataUrl, 'application/samlmetadata+xml, application/xml, text/xml');
    } catch (err) {
      fail('metadataUrl', err instanceof FetchError ? new FetchError(`${c.metadataUrl} ${err.message}`) : err);
    }
  }
  const field = c.metadataUrl !== undefined ? 'metadataUrl' : 'metadataXml';
  try {
    const idp = parseIdpMetadata(xml as string);
    return {
      idpEntityId: idp.entityId,
      idpSsoUrl: idp.ssoUrl,
      certificates: idp.certificates,
      oidcMetadata: null,
      metadataFetchedAt: c.metadataUrl !== undefined ? ctx.now() : null,
    };
  } catch (err) {
    return fail(field, err instanceof Error && err.name === 'MetadataError' ? prefixed(err, 'the metadata') : err);
  }
}

function prefixed(err: Error, what: string): Error {
  const e = new Error(`${what} ${err.message}`);
  e.name = err.name;
  return e;
}

/** Whether a PUT names the same identity provider as the stored configuration: the same URL or issuer. */
function sameSource(stored: StoredSso, input: SsoPutFields): boolean {
  if (stored.protocol !== input.protocol) return false;
  if (input.protocol === 'oidc') return stored.issuer === input.issuer && stored.oidcMetadata !== null;
  return input.metadataUrl !== undefined && stored.metadataUrl === input.metadataUrl && stored.idpSsoUrl !== null;
}

/** What was read from the identity provider for a stored configuration. */
function identityProviderOf(s: StoredSso): IdentityProvider {
  const { idpEntityId, idpSsoUrl, certificates, oidcMetadata, metadataFetchedAt } = s;
  return { idpEntityId, idpSsoUrl, certificates, oidcMetadata, metadataFetchedAt };
}

/** Whether the configuration still signs in through the provider whose subjects its identities are. */
function sameProvider(stored: StoredSso, idp: IdentityProvider, input: SsoPutFields): boolean {
  if (stored.protocol !== input.protocol) return false;
  return input.protocol === 'oidc' ? stored.issuer === input.issuer : stored.idpEntityId === idp.idpEntityId;
}

/**
 * `422` naming the first domain the organization does not hold — verified, or `legacy` from an earlier release
 * (docs/domains.md): single sign-on applies to proven domains only. One organization at most holds a domain, so no
 * two configurations ever route the same one.
 */
async function checkDomains(ctx: BaseCtx, orgId: string, domains: readonly string[]): Promise<void> {
  for (const [i, domain] of domains.entries()) {
    const holder = await ctx.stores.domains.holder(domain);
    if (holder?.organizationId !== orgId) {
      throw invalidField(
        `domains.${i}`,
        `${domain} is not a verified domain of this organization: claim it and verify it first (plat domains add)`,
      );
    }
  }
}

/**
 * `PUT /organizations/{orgId}/sso` (owners): creates or replaces the configuration, after reading the identity provider
 * it names (`422` naming the field when that fails: nothing is saved). Omitted optional fields are cleared, except
 * `enabled` (kept; `false` for a new configuration) and an OIDC `clientSecret` (kept when stored). Each domain
 * must be one the organization verified (`422`).
 */
export async function putSso(ctx: Ctx, orgId: string, input: SsoPutFields): Promise<SsoConfig> {
  // `sso:write` was checked before this runs (the pipeline): only an owner makes the platform fetch an address.
  const before = await ctx.stores.sso.get(orgId);
  checkConsistency(input, before);
  const domains = [...new Set((input.domains ?? []).map((d) => d.toLowerCase()))];
  await checkDomains(ctx, orgId, domains);
  // The identity provider is read at every save. When it cannot be (down, or answering nonsense for now) and the
  // configuration still names the same one, what was read from it last still signs people in: so `plat sso
  // enable`/`disable`, which save the configuration again, work while the provider is down. POST …/sso/refresh
  // insists.
  const idp = await readIdentityProvider(ctx, input).catch((err: unknown) => {
    const unreadable = err instanceof PlatformError && err.code === 'validation_error';
    if (unreadable && before !== undefined && sameSource(before, input)) return identityProviderOf(before);
    throw err;
  });
  return ctx.tx(async (ctx) => {
    // Read again under the write lock: another request may have changed it while the provider was fetched.
    const stored = await ctx.stores.sso.get(orgId);
    checkConsistency(input, stored);
    await checkDomains(ctx, orgId, domains);
    // Another identity provider: its subjects are not the old one's, so no identity it linked may sign in.
    if (!stored || !sameProvider(stored, idp, input)) await ctx.stores.ssoSignIn.unlinkOrg(orgId);
    const now = ctx.now();
    const clientSecret =
      input.protocol === 'oidc' ? (input.clientSecret ?? (await ctx.stores.sso.clientSecret(orgId))) : null;
    const config: StoredSso = {
      organizationId: orgId,
      protocol: input.protocol,
      provider: input.provider,
      enabled: input.enabled ?? stored?.enabled ?? false,
      metadataUrl: input.metadataUrl ?? null,
      metadataXml: input.metadataXml ?? null,
      issuer: input.issuer ?? null,
      clientId: input.clientId ?? null,
      clientSecretSet: clientSecret !== null,
      attributeMapping: input.attributeMapping,
      domains,
      allowIdpInitiated: input.allowIdpInitiated ?? false,
      defaultRole: input.defaultRole ?? 'member',
      ...idp,
      createdAt: stored?.createdAt ?? now,
      updatedAt: now,
    };
    const { clientSecretSet: _, ...write } = config;
    await ctx.stores.sso.put({ ...write, clientSecret });
    await ctx.emit(
      'sso.updated',
      { type: 'organization', id: orgId },
      {
        created: stored === undefined,
        protocol: config.protocol,
        provider: config.provider,
        enabled: config.enabled,
        clientSecretChanged: input.clientSecret !== undefined,
      },
    );
    return ssoRecord(ctx, config);
  });
}

/**
 * `POST /organizations/{orgId}/sso/refresh` (owners): reads the identity provider again — fetches the metadata URL or
 * the OIDC discovery document (an identity provider that rotated its certificates), or parses uploaded metadata again
 * (a configuration saved before the platform read identity providers).
 */
export async function refreshSso(ctx: Ctx, orgId: string): Promise<SsoConfig> {
  const stored = await loadConfig(ctx);
  const source = {
    protocol: stored.protocol,
    metadataUrl: stored.metadataUrl ?? undefined,
    metadataXml: stored.metadataUrl === null ? (stored.metadataXml ?? undefined) : undefined,
    issuer: stored.issuer ?? undefined,
  };
  const idp = await readIdentityProvider(ctx, source);
  return ctx.tx(async (ctx) => {
    const current = await ctx.stores.sso.get(orgId);
    if (!current) throw notFound('SSO configuration');
    const config: StoredSso = { ...current, ...idp, updatedAt: ctx.now() };
    // Metadata that now names another entity: another identity provider, whose NameIDs are not the old one's.
    if (current.protocol === 'saml' && current.idpEntityId !== idp.idpEntityId) {
      await ctx.stores.ssoSignIn.unlinkOrg(orgId);
    }
    const { clientSecretSet: _, ...write } = config;
    await ctx.stores.sso.put({ ...write, clientSecret: await ctx.stores.sso.clientSecret(orgId) });
    await ctx.emit(
      'sso.refreshed',
      { type: 'organization', id: orgId },
      { protocol: config.protocol, certificates: config.certificates.map((c) => c.fingerprint) },
    );
    return ssoRecord(ctx, config);
  });
}

/** `DELETE /organizations/{orgId}/sso` (owners): members sign in with their passwords again. */
export async function deleteSso(ctx: Ctx, orgId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const config = await loadConfig(ctx);
    await ctx.stores.sso.remove(orgId);
    // Who was who at its identity provider: a configuration saved later may name another one.
    await ctx.stores.ssoSignIn.unlinkOrg(orgId);
    await ctx.emit(
      'sso.deleted',
      { type: 'organization', id: orgId },
      { protocol: config.protocol, provider: config.provider },
    );
  });
}

/** How long a `plat sso test` waits for its sign-in, and keeps its outcome. */
const TEST_TTL_MS = 60 * 60_000;

function testRecord(t: StoredSsoTest, signInUrl: string | null): SsoTest {
  const succeeded = t.status === 'succeeded' ? (t.result as SsoTest['profile']) : null;
  const failed = t.status === 'failed' ? (t.result as SsoTest['failure']) : null;
  return {
    id: t.id,
    organizationId: t.orgId,
    status: t.status,
    signInUrl,
    profile: succeeded,
    failure: failed,
    createdAt: t.createdAt,
    expiresAt: t.expiresAt,
  };
}

/**
 * `POST /organizations/{orgId}/sso/tests` (owners and admins): a test sign-in through the identity provider, to open
 * in a browser; nobody is signed in and nothing is created. A disabled configuration may be tested before it is
 * enabled.
 */
export async function startSsoTest(ctx: Ctx, orgId: string): Promise<SsoTest> {
  const config = await loadConfig(ctx);
  if (!isUsable(config)) {
    throw conflict('the configuration was never read from its identity provider: save or refresh it first');
  }
  const now = ctx.clock().getTime();
  const test = {
    id: ctx.ids('ssoTest'),
    orgId,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + TEST_TTL_MS).toISOString(),
  };
  await ctx.tx((ctx) => ctx.stores.ssoSignIn.insertTest(test));
  const { ssoSignInUrl } = await import('../sso/begin.js');
  const signInUrl = await ssoSignInUrl(ctx, config, { kind: 'test', testId: test.id });
  return testRecord({ ...test, status: 'pending', result: null }, signInUrl);
}

/** `GET /organizations/{orgId}/sso/tests/{testId}`: the test's outcome, once its sign-in came back. */
export async function getSsoTest(ctx: Ctx, orgId: string, testId: string): Promise<SsoTest> {
  const t = await ctx.stores.ssoSignIn.test(orgId, testId);
  if (!t || t.expiresAt <= ctx.now()) throw notFound('SSO test');
  return testRecord(t, null);
}
