import type { Migration } from './migration.js';

/**
 * Migration 3: the secrets 0.1.0 stored in clear — an OIDC client secret, the token-signing private keys — sealed with
 * the key kept apart from the database (store/secret-box.ts; sealing records that key's id). No schema change: the
 * same columns hold sealed values. The additional data each is bound to is written out here, as the stores write it,
 * so that this migration stays what it is whatever the stores become.
 */
export const migration: Migration = {
  version: 3,
  name: 'seal_secrets',
  sql: '',
  after: (db, { secrets }) => {
    const clear = "substr(%s, 1, 7) <> 'enc:v1:'";
    const clientSecrets = db
      .prepare(`SELECT org_id, client_secret FROM sso_configs WHERE client_secret IS NOT NULL AND ${clear.replace('%s', 'client_secret')}`)
      .all() as { org_id: string; client_secret: string }[];
    const sealSecret = db.prepare('UPDATE sso_configs SET client_secret = ? WHERE org_id = ?');
    for (const r of clientSecrets) {
      sealSecret.run(secrets.seal(r.client_secret, `sso_configs.client_secret:${r.org_id}`), r.org_id);
    }
    const keys = db
      .prepare(`SELECT kid, private_jwk FROM signing_keys WHERE ${clear.replace('%s', 'private_jwk')}`)
      .all() as { kid: string; private_jwk: string }[];
    const sealKey = db.prepare('UPDATE signing_keys SET private_jwk = ? WHERE kid = ?');
    for (const k of keys) sealKey.run(secrets.seal(k.private_jwk, `signing_keys.private_jwk:${k.kid}`), k.kid);
  },
};
