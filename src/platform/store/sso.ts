import type { SsoConfig } from '../../contract/sso.js';
import type { Db } from './db.js';
import { SEALED, type SecretBox } from './secret-box.js';

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
export function ssoStore(db: Db, secrets: SecretBox) {
  const get = db.prepare<[string], Row>('SELECT * FROM sso_configs WHERE org_id = ?');
  const upsert = db.prepare(
    `INSERT INTO sso_configs (org_id, protocol, provider, enabled, metadata_url, metadata_xml, issuer, client_id,
       client_secret, attribute_mapping, domains, allow_idp_initiated, default_role, idp_entity_id, idp_sso_url,
       idp_certificates, oidc_metadata, fetched_at, created_at, updated_at)
     VALUES (@organizationId, @protocol, @provider, @enabled, @metadataUrl, @metadataXml, @issuer, @clientId,
       @clientSecret, @attributeMapping, @domains, @allowIdpInitiated, @defaultRole, @idpEntityId, @idpSsoUrl,
       @certificates, @oidcMetadata, @metadataFetchedAt, @createdAt, @updatedAt)
     ON CONFLICT (org_id) DO UPDATE SET protocol = excluded.protocol, provider = excluded.provider,
       enabled = excluded.enabled, metadata_url = excluded.metadata_url, metadata_xml = excluded.metadata_xml,
       issuer = excluded.issuer, client_id = excluded.client_id, client_secret = excluded.client_secret,
       attribute_mapping = excluded.attribute_mapping, domains = excluded.domains,
       allow_idp_initiated = excluded.allow_idp_initiated, default_role = excluded.default_role,
       idp_entity_id = excluded.idp_entity_id, idp_sso_url = excluded.idp_sso_url,
       idp_certificates = excluded.idp_certificates, oidc_metadata = excluded.oidc_metadata,
       fetched_at = excluded.fetched_at, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare('DELETE FROM sso_configs WHERE org_id = ?');
  const forgetSecrets = db.prepare<[string], { org_id: string }>(
    'UPDATE sso_configs SET client_secret = NULL, updated_at = ? WHERE client_secret IS NOT NULL RETURNING org_id',
  );
  const forgetKeyId = db.prepare("DELETE FROM meta WHERE key = 'secret_key_id'");

  const domainOwner = db.prepare<[string], { org_id: string }>('SELECT org_id FROM sso_domains WHERE domain = ?');
  const dropDomains = db.prepare('DELETE FROM sso_domains WHERE org_id = ?');
  const addDomain = db.prepare('INSERT INTO sso_domains (domain, org_id) VALUES (?, ?)');
  const enabledFor = db.prepare<[string], Row>(
    `SELECT c.* FROM sso_domains d JOIN sso_configs c ON c.org_id = d.org_id WHERE d.domain = ? AND c.enabled = 1`,
  );
  return {
    /** The organization's configuration (without its secret), or undefined. */
    get: (orgId: string) => {
      const r = get.get(orgId);
      return r && toStored(r);
    },
    /** The stored OIDC client secret, for sign-in through the identity provider. */
    clientSecret: (orgId: string) => {
      const sealed = get.get(orgId)?.client_secret;
      return sealed == null ? null : secrets.open(sealed, SEALED.ssoClientSecret(orgId));
    },
    /**
     * Creates or replaces the configuration (keeping its `createdAt`) and the domains it claims. The caller checked
     * that no other organization claims them (`domainOwner`), in the same transaction.
     */
    put: (c: SsoWrite) => {
      upsert.run({
        ...c,
        enabled: c.enabled ? 1 : 0,
        clientSecret:
          c.clientSecret === null ? null : secrets.seal(c.clientSecret, SEALED.ssoClientSecret(c.organizationId)),
        attributeMapping: JSON.stringify(c.attributeMapping),
        domains: JSON.stringify(c.domains),
        allowIdpInitiated: c.allowIdpInitiated ? 1 : 0,
        certificates: JSON.stringify(c.certificates),
        oidcMetadata: c.oidcMetadata === null ? null : JSON.stringify(c.oidcMetadata),
      });
      dropDomains.run(c.organizationId);
      for (const domain of c.domains) addDomain.run(domain, c.organizationId);
    },
    /** Deletes the configuration and its domains; false when there was none. */
    remove: (orgId: string) => {
      dropDomains.run(orgId);
      return remove.run(orgId).changes === 1;
    },
    /** The organization that claims an e-mail domain (lower-case), if any. */
    domainOwner: (domain: string) => domainOwner.get(domain)?.org_id,
    /** The enabled configuration whose domains hold this one (lower-case): where an e-mail of it signs in. */
    enabledForDomain: (domain: string) => {
      const r = enabledFor.get(domain);
      return r && toStored(r);
    },
    /**
     * Discards every stored client secret and the record of the key secrets were sealed with (see
     * operations/secrets.ts); the organizations whose secret is gone.
     */
    forgetClientSecrets: (now: string) => {
      const orgs = forgetSecrets.all(now).map((r) => r.org_id);
      forgetKeyId.run();
      return orgs;
    },
  };
}
