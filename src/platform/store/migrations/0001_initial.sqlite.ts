import { randomBytes } from 'node:crypto';
import type { Migration } from './migration.js';

/**
 * Migration 1, as plat 0.1.0 released it: the whole schema of that release, and the secret cursors are signed with.
 * Frozen: never edit it (a database made by 0.1.0 has exactly this schema); change the schema with a new migration.
 */
export const migration: Migration = {
  version: 1,
  name: 'initial',
  sql: `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  slug TEXT NOT NULL UNIQUE,
  plan TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  email_verified INTEGER NOT NULL DEFAULT 0,
  password_hash TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE org_users (
  seq INTEGER PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  name TEXT,
  avatar_url TEXT,
  role TEXT NOT NULL,
  status TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  last_login_at TEXT,
  joined_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (org_id, user_id)
);
CREATE INDEX org_users_user ON org_users (user_id);
CREATE INDEX org_users_role ON org_users (org_id, role, status);
CREATE INDEX org_users_status ON org_users (org_id, status);
CREATE INDEX org_users_created ON org_users (org_id, created_at, user_id);
CREATE INDEX org_users_email ON org_users (org_id, email COLLATE NOCASE, user_id);
CREATE INDEX org_users_name_asc ON org_users (org_id, (name IS NULL), name COLLATE NOCASE, user_id);
CREATE INDEX org_users_name_desc ON org_users (org_id, (name IS NULL), name COLLATE NOCASE DESC, user_id DESC);
CREATE INDEX org_users_login_asc ON org_users (org_id, (last_login_at IS NULL), last_login_at, user_id);
CREATE INDEX org_users_login_desc ON org_users (org_id, (last_login_at IS NULL), last_login_at DESC, user_id DESC);
CREATE VIRTUAL TABLE org_users_search USING fts5 (name, email, content = 'org_users', content_rowid = 'seq', tokenize = 'trigram');
CREATE TRIGGER org_users_search_insert AFTER INSERT ON org_users BEGIN
  INSERT INTO org_users_search (rowid, name, email) VALUES (new.seq, new.name, new.email);
END;
CREATE TRIGGER org_users_search_delete AFTER DELETE ON org_users BEGIN
  INSERT INTO org_users_search (org_users_search, rowid, name, email) VALUES ('delete', old.seq, old.name, old.email);
END;
CREATE TRIGGER org_users_search_update AFTER UPDATE OF name, email ON org_users BEGIN
  INSERT INTO org_users_search (org_users_search, rowid, name, email) VALUES ('delete', old.seq, old.name, old.email);
  INSERT INTO org_users_search (rowid, name, email) VALUES (new.seq, new.name, new.email);
END;


CREATE TABLE invitations (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  email TEXT NOT NULL,
  name TEXT,
  role TEXT NOT NULL,
  teams TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  invited_by TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  accepted_at TEXT,
  revoked_at TEXT
);
CREATE INDEX invitations_org ON invitations (org_id, created_at, id);
CREATE INDEX invitations_user ON invitations (org_id, user_id);

CREATE TABLE outbox (
  id TEXT PRIMARY KEY,
  org_id TEXT,
  to_addr TEXT NOT NULL,
  subject TEXT NOT NULL,
  text TEXT NOT NULL,
  links TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  sent_at TEXT
);
CREATE INDEX outbox_created ON outbox (created_at, id);
CREATE INDEX outbox_to ON outbox (to_addr COLLATE NOCASE, created_at);


CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX teams_name ON teams (org_id, name COLLATE NOCASE);
CREATE INDEX teams_created ON teams (org_id, created_at, id);
CREATE TABLE team_members (
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (org_id, user_id);
CREATE INDEX team_members_created ON team_members (team_id, created_at, user_id);


CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  slug TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL,
  settings TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (org_id, slug)
);
CREATE INDEX projects_created ON projects (org_id, created_at, id);
CREATE TABLE project_members (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user ON project_members (org_id, user_id);
CREATE INDEX project_members_created ON project_members (project_id, created_at, user_id);
CREATE TABLE environments (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  config TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, name)
);


CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  client_id TEXT,
  ip_address TEXT,
  user_agent TEXT,
  created_at TEXT NOT NULL,
  last_active TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
);
CREATE INDEX sessions_user ON sessions (user_id, org_id);
CREATE TABLE session_cutoffs (
  org_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  cut_at TEXT NOT NULL,
  kept_session_id TEXT,
  PRIMARY KEY (org_id, user_id),
  FOREIGN KEY (org_id, user_id) REFERENCES org_users (org_id, user_id) ON DELETE CASCADE
);


CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  name TEXT NOT NULL,
  environment TEXT NOT NULL,
  prefix TEXT NOT NULL,
  last4 TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  project_ids TEXT,
  permissions TEXT,
  multi_org INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX api_keys_created ON api_keys (org_id, created_at, id);
CREATE INDEX api_keys_user ON api_keys (user_id);


CREATE TABLE events (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  type TEXT NOT NULL,
  actor_type TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  target_type TEXT,
  target_id TEXT,
  request_id TEXT,
  data TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL
);
CREATE INDEX events_org ON events (org_id, created_at, id);
CREATE INDEX events_type ON events (org_id, type, created_at, id);


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


CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  alg TEXT NOT NULL,
  private_jwk TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at TEXT NOT NULL,
  retired_at TEXT
);

CREATE TABLE authorization_codes (
  code_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  scopes TEXT NOT NULL,
  user_id TEXT NOT NULL,
  org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  ip_address TEXT,
  user_agent TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT,
  session_id TEXT
);
CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at);
CREATE TABLE refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  client_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

CREATE TABLE device_codes (
  device_code_hash TEXT PRIMARY KEY,
  user_code TEXT NOT NULL UNIQUE,
  client_id TEXT NOT NULL,
  requested_scope TEXT,
  requested_org TEXT,
  status TEXT NOT NULL,
  user_id TEXT,
  org_id TEXT,
  scopes TEXT,
  ip_address TEXT,
  user_agent TEXT,
  poll_interval INTEGER NOT NULL,
  last_polled_at TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  session_id TEXT
);
CREATE INDEX device_codes_expiry ON device_codes (expires_at);
CREATE TABLE login_tickets (
  ticket_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE TABLE login_attempts (
  key TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  last_failure_at TEXT NOT NULL,
  locked_until TEXT
);

`,
  after: (db) => {
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('cursor_secret', randomBytes(32).toString('hex'));
  },
};
