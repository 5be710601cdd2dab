import type { SsoConfig } from '../../contract/sso.js';
import { SEALED } from './secret-box.js';
import type { Q, StoreEnv } from './sql.js';

/** What the platform read from the identity provider: SAML metadata's entity, sign-in URL and certificates. */
export interface IdpCertificateRecord {
  pem: string;
  fingerprint: string;
  notAfter: string;
}

/** A configuration as stored: the record's own fields, without those computed from the instance's public URL. */
export type StoredSso = Omit<SsoConfig, 'spEntityId' | 'spMetadataUrl' | 'acsUrl' | 'redirectUri' | 'certificates'> & {
  certificates: IdpCertificateRecord[];
  /** The OIDC discovery document, as fetched. */
  oidcMetadata: Record<string, unknown> | null;
};

/** A configuration to write: the stored fields plus the secret itself (null for none). */
export type SsoWrite = Omit<StoredSso, 'clientSecretSet'> & { clientSecret: string | null };

/**
 * Whether the configuration has what a sign-in through its identity provider needs: what was read from the IdP when
 * it was saved (a configuration saved before 0.2.0 never was, and is not routed to until it is saved or refreshed).
 */
export function isUsable(sso: StoredSso): boolean {
  return sso.protocol === 'saml' ? sso.idpSsoUrl !== null && sso.certificates.length > 0 : sso.oidcMetadata !== null;
}

type Row = {
  org_id: string;
  protocol: SsoConfig['protocol'];
  provider: SsoConfig['provider'];
  enabled: number;
  metadata_url: string | null;
  metadata_xml: string | null;
  issuer: string | null;
  client_id: string | null;
  client_secret: string | null;
  attribute_mapping: string;
  domains: string;
  allow_idp_initiated: number;
  default_role: SsoConfig['defaultRole'];
  idp_entity_id: string | null;
  idp_sso_url: string | null;
  idp_certificates: string;
  oidc_metadata: string | null;
  fetched_at: string | null;
  created_at: string;
  updated_at: string;
};

function toStored(r: Row): StoredSso {
  return {
    organizationId: r.org_id,
    protocol: r.protocol,
    provider: r.provider,
    enabled: r.enabled === 1,
    metadataUrl: r.metadata_url,
    metadataXml: r.metadata_xml,
    issuer: r.issuer,
    clientId: r.client_id,
    clientSecretSet: r.client_secret !== null,
    attributeMapping: JSON.parse(r.attribute_mapping) as SsoConfig['attributeMapping'],
    domains: JSON.parse(r.domains) as string[],
    allowIdpInitiated: r.allow_idp_initiated === 1,
    defaultRole: r.default_role,
    idpEntityId: r.idp_entity_id,
    idpSsoUrl: r.idp_sso_url,
    certificates: JSON.parse(r.idp_certificates) as IdpCertificateRecord[],
    oidcMetadata: r.oidc_metadata === null ? null : (JSON.parse(r.oidc_metadata) as Record<string, unknown>),
    metadataFetchedAt: r.fetched_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * SSO configurations and the e-mail domains they claim: their SQL in one place. The OIDC client secret is kept sealed
 * (store/secret-box.ts), opened for sign-in only, and never read back out through the API. A domain belongs to one
 * organization at most (`sso_domains`), which is how the sign-in page finds an e-mail's identity provider.
 */
export function ssoStore(q: Q, env: StoreEnv) {
  const { secrets } = env;
  const byOrg = (orgId: string) =>
    q.selectFrom('sso_configs').selectAll().where('org_id', '=', orgId).$castTo<Row>().executeTakeFirst();
  const dropDomains = (orgId: string) => q.deleteFrom('sso_domains').where('org_id', '=', orgId).execute();
  return {
    /** The organization's configuration (without its secret), or undefined. */
    get: async (orgId: string) => {
      const r = await byOrg(orgId);
      return r && toStored(r);
    },
    /** The stored OIDC client secret, for sign-in through the identity provider. */
    clientSecret: async (orgId: string) => {
      const sealed = (await byOrg(orgId))?.client_secret;
      return sealed == null ? null : secrets.open(sealed, SEALED.ssoClientSecret(orgId));
    },
    /**
     * Creates or replaces the configuration (keeping its `createdAt`) and the domains it claims. The caller checked
     * that no other organization claims them (`domainOwner`), in the same transaction.
     */
    put: async (c: SsoWrite): Promise<void> => {
      await q
        .insertInto('sso_configs')
        .values({
          org_id: c.organizationId,
          protocol: c.protocol,
          provider: c.provider,
          enabled: c.enabled ? 1 : 0,
          metadata_url: c.metadataUrl,
          metadata_xml: c.metadataXml,
          issuer: c.issuer,
          client_id: c.clientId,
          client_secret:
            c.clientSecret === null ? null : secrets.seal(c.clientSecret, SEALED.ssoClientSecret(c.organizationId)),
          attribute_mapping: JSON.stringify(c.attributeMapping),
          domains: JSON.stringify(c.domains),
          allow_idp_initiated: c.allowIdpInitiated ? 1 : 0,
          default_role: c.defaultRole,
          idp_entity_id: c.idpEntityId,
          idp_sso_url: c.idpSsoUrl,
          idp_certificates: JSON.stringify(c.certificates),
          oidc_metadata: c.oidcMetadata === null ? null : JSON.stringify(c.oidcMetadata),
          fetched_at: c.metadataFetchedAt,
          created_at: c.createdAt,
          updated_at: c.updatedAt,
        })
        .onConflict((oc) =>
          oc.column('org_id').doUpdateSet((eb) => ({
            protocol: eb.ref('excluded.protocol'),
            provider: eb.ref('excluded.provider'),
            enabled: eb.ref('excluded.enabled'),
            metadata_url: eb.ref('excluded.metadata_url'),
            metadata_xml: eb.ref('excluded.metadata_xml'),
            issuer: eb.ref('excluded.issuer'),
            client_id: eb.ref('excluded.client_id'),
            client_secret: eb.ref('excluded.client_secret'),
            attribute_mapping: eb.ref('excluded.attribute_mapping'),
            domains: eb.ref('excluded.domains'),
            allow_idp_initiated: eb.ref('excluded.allow_idp_initiated'),
            default_role: eb.ref('excluded.default_role'),
            idp_entity_id: eb.ref('excluded.idp_entity_id'),
            idp_sso_url: eb.ref('excluded.idp_sso_url'),
            idp_certificates: eb.ref('excluded.idp_certificates'),
            oidc_metadata: eb.ref('excluded.oidc_metadata'),
            fetched_at: eb.ref('excluded.fetched_at'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
      await dropDomains(c.organizationId);
      for (const domain of c.domains) {
        await q.insertInto('sso_domains').values({ domain, org_id: c.organizationId }).execute();
      }
    },
    /** Deletes the configuration and its domains; false when there was none. */
    remove: async (orgId: string) => {
      await dropDomains(orgId);
      const r = await q.deleteFrom('sso_configs').where('org_id', '=', orgId).executeTakeFirst();
      return r.numDeletedRows === 1n;
    },
    /**
     * Takes a domain (lower case) out of the organization's configuration, when its claim was given up or taken by
     * another organization; whether the configuration held it.
     */
    dropDomain: async (orgId: string, domain: string, now: string): Promise<boolean> => {
      await q.deleteFrom('sso_domains').where('org_id', '=', orgId).where('domain', '=', domain).execute();
      const r = await byOrg(orgId);
      const domains = r ? (JSON.parse(r.domains) as string[]) : [];
      if (!domains.includes(domain)) return false;
      await q
        .updateTable('sso_configs')
        .set({ domains: JSON.stringify(domains.filter((d) => d !== domain)), updated_at: now })
        .where('org_id', '=', orgId)
        .execute();
      return true;
    },
    /** The organization that claims an e-mail domain (lower-case), if any. */
    domainOwner: async (domain: string) => {
      const r = await q.selectFrom('sso_domains').select('org_id').where('domain', '=', domain).executeTakeFirst();
      return r?.org_id;
    },
    /** The enabled configuration whose domains hold this one (lower-case): where an e-mail of it signs in. */
    enabledForDomain: async (domain: string) => {
      const r = await q
        .selectFrom('sso_domains as d')
        .innerJoin('sso_configs as c', 'c.org_id', 'd.org_id')
        .selectAll('c')
        .where('d.domain', '=', domain)
        .where('c.enabled', '=', 1)
        .$castTo<Row>()
        .executeTakeFirst();
      return r && toStored(r);
    },
    /**
     * Discards every stored client secret and the record of the key secrets were sealed with (see
     * operations/secrets.ts); the organizations whose secret is gone.
     */
    forgetClientSecrets: async (now: string) => {
      const forgotten = await q
        .updateTable('sso_configs')
        .set({ client_secret: null, updated_at: now })
        .where('client_secret', 'is not', null)
        .returning('org_id')
        .execute();
      await q.deleteFrom('meta').where('key', '=', 'secret_key_id').execute();
      return forgotten.map((r) => r.org_id);
    },
  };
}
