import type { Db } from './db.js';

export const SCHEMA = `
CREATE TABLE sso_configs (
  org_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  protocol TEXT NOT NULL,
  provider TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  metadata_url TEXT,
  metadata_xml TEXT,
  issuer TEXT,
  client_id TEXT,
  client_secret TEXT,
  attribute_mapping TEXT NOT NULL,
  domains TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`;

/** SSO configurations: their SQL in one place. */
export function ssoStore(_db: Db) {
  return {};
}
