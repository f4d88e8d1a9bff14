-- The store of record: releases, channels (public and internal), blocked edges, raw metadata,
-- the imports applied, and the audit log. JSON columns hold lists and maps as written.

CREATE TABLE releases (
  arch        TEXT NOT NULL,
  version     TEXT NOT NULL,
  payload     TEXT NOT NULL,
  previous    TEXT NOT NULL DEFAULT '[]',
  next        TEXT NOT NULL DEFAULT '[]',
  metadata    TEXT NOT NULL DEFAULT '{}',
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (arch, version)
) WITHOUT ROWID;

CREATE TABLE channels (
  kind        TEXT NOT NULL CHECK (kind IN ('public', 'internal')),
  name        TEXT NOT NULL,
  feeder      TEXT,
  tombstones  TEXT NOT NULL DEFAULT '[]',
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (kind, name)
) WITHOUT ROWID;

-- Membership with the time a version entered the channel, so promotion delays can be checked.
CREATE TABLE channel_versions (
  kind        TEXT NOT NULL,
  channel     TEXT NOT NULL,
  version     TEXT NOT NULL,
  position    INTEGER NOT NULL,
  added_at    TEXT NOT NULL,
  PRIMARY KEY (kind, channel, version),
  FOREIGN KEY (kind, channel) REFERENCES channels (kind, name) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE blocked_edges (
  id          TEXT PRIMARY KEY,
  to_version  TEXT NOT NULL,
  from_regex  TEXT NOT NULL,
  risk        TEXT,
  fixed_in    TEXT,
  auto_extend TEXT,
  updated_at  TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE raw_metadata (
  version     TEXT PRIMARY KEY,
  metadata    TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE imports (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  content_hash  TEXT NOT NULL,
  source        TEXT NOT NULL,
  schema_version TEXT NOT NULL,
  imported_at   TEXT NOT NULL,
  summary       TEXT NOT NULL
);

CREATE TABLE audit (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  at          TEXT NOT NULL,
  actor       TEXT NOT NULL,
  action      TEXT NOT NULL,
  target      TEXT NOT NULL,
  before      TEXT,
  after       TEXT,
  reason      TEXT
);
CREATE INDEX audit_at ON audit (at);
