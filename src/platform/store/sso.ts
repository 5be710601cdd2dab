import type { SsoConfig } from '../../contract/sso.js';
import type { Db } from './db.js';
import { SEALED, type SecretBox } from './secret-box.js';

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
  created_at: string;
  updated_at: string;
};

function toConfig(r: Row): SsoConfig {
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
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** A configuration to write: the record's fields plus the secret itself (null for none). */
export type SsoWrite = Omit<SsoConfig, 'clientSecretSet'> & { clientSecret: string | null };

/**
 * SSO configurations: their SQL in one place. The OIDC client secret is kept sealed (store/secret-box.ts), opened for
 * sign-in only, and never read back out through the API.
 */
export function ssoStore(db: Db, secrets: SecretBox) {
  const get = db.prepare<[string], Row>('SELECT * FROM sso_configs WHERE org_id = ?');
  const upsert = db.prepare(
    `INSERT INTO sso_configs (org_id, protocol, provider, enabled, metadata_url, metadata_xml, issuer, client_id,
       client_secret, attribute_mapping, domains, created_at, updated_at)
     VALUES (@organizationId, @protocol, @provider, @enabled, @metadataUrl, @metadataXml, @issuer, @clientId,
       @clientSecret, @attributeMapping, @domains, @createdAt, @updatedAt)
     ON CONFLICT (org_id) DO UPDATE SET protocol = excluded.protocol, provider = excluded.provider,
       enabled = excluded.enabled, metadata_url = excluded.metadata_url, metadata_xml = excluded.metadata_xml,
       issuer = excluded.issuer, client_id = excluded.client_id, client_secret = excluded.client_secret,
       attribute_mapping = excluded.attribute_mapping, domains = excluded.domains, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare('DELETE FROM sso_configs WHERE org_id = ?');
  const forgetSecrets = db.prepare<[string], { org_id: string }>(
    'UPDATE sso_configs SET client_secret = NULL, updated_at = ? WHERE client_secret IS NOT NULL RETURNING org_id',
  );
  const forgetKeyId = db.prepare("DELETE FROM meta WHERE key = 'secret_key_id'");
  return {
    /** The organization's configuration (without its secret), or undefined. */
    get: (orgId: string) => {
      const r = get.get(orgId);
      return r && toConfig(r);
    },
    /** The stored OIDC client secret, for sign-in through the identity provider. */
    clientSecret: (orgId: string) => {
      const sealed = get.get(orgId)?.client_secret;
      return sealed == null ? null : secrets.open(sealed, SEALED.ssoClientSecret(orgId));
    },
    /** Creates or replaces the configuration (keeping its `createdAt`). */
    put: (c: SsoWrite) =>
      void upsert.run({
        ...c,
        enabled: c.enabled ? 1 : 0,
        clientSecret:
          c.clientSecret === null ? null : secrets.seal(c.clientSecret, SEALED.ssoClientSecret(c.organizationId)),
        attributeMapping: JSON.stringify(c.attributeMapping),
        domains: JSON.stringify(c.domains),
      }),
    /**
     * Discards every stored client secret and the record of the key secrets were sealed with (see
     * operations/secrets.ts); the organizations whose secret is gone.
     */
    forgetClientSecrets: (now: string) => {
      const orgs = forgetSecrets.all(now).map((r) => r.org_id);
      forgetKeyId.run();
      return orgs;
    },
    /** Deletes the configuration; false when there was none. */
    remove: (orgId: string) => remove.run(orgId).changes === 1,
  };
}
