import { SEALED } from '../secret-box.js';
import type { Db } from '../sqlite.js';
import type { MigrationEnv } from './index.js';

/**
 * Migration 3: the secrets 0.1.0 stored in clear — an OIDC client secret, the token-signing private keys — sealed with
 * the key kept apart from the database (store/secret-box.ts). No schema change: the same columns hold sealed values.
 */
export function sealSecrets(db: Db, { secrets }: MigrationEnv): void {
  const clientSecrets = db
    .prepare(
      "SELECT org_id, client_secret FROM sso_configs WHERE client_secret IS NOT NULL AND client_secret NOT LIKE 'enc:%'",
    )
    .all() as { org_id: string; client_secret: string }[];
  const sealSecret = db.prepare('UPDATE sso_configs SET client_secret = ? WHERE org_id = ?');
  for (const r of clientSecrets)
    sealSecret.run(secrets.seal(r.client_secret, SEALED.ssoClientSecret(r.org_id)), r.org_id);
  const keys = db.prepare("SELECT kid, private_jwk FROM signing_keys WHERE private_jwk NOT LIKE 'enc:%'").all() as {
    kid: string;
    private_jwk: string;
  }[];
  const sealKey = db.prepare('UPDATE signing_keys SET private_jwk = ? WHERE kid = ?');
  for (const k of keys) sealKey.run(secrets.seal(k.private_jwk, SEALED.signingKey(k.kid)), k.kid);
}
