-- The fleet: one row per cluster that polled the graph with an id (or the id's keyed hash, with
-- --fleet-hash-ids), as the poll recorder last flushed it. Times are milliseconds since 1970.
CREATE TABLE fleet_clusters (
  id            TEXT PRIMARY KEY,
  channel       TEXT NOT NULL,
  arch          TEXT NOT NULL,
  version       TEXT,                -- NULL: its polls named no version
  first_seen    BIGINT NOT NULL,
  last_seen     BIGINT NOT NULL,
  version_since BIGINT NOT NULL,    -- its first poll at this version
  polls         BIGINT NOT NULL
);
CREATE INDEX fleet_clusters_by_group ON fleet_clusters (channel, arch, version);

-- Each update a cluster was seen to take: polls at one version, then at another.
CREATE TABLE fleet_updates (
  id            TEXT NOT NULL,
  from_version  TEXT NOT NULL,
  to_version    TEXT NOT NULL,
  last_at_from  BIGINT NOT NULL,    -- its last poll at from_version
  first_at_to   BIGINT NOT NULL,    -- its first poll at to_version
  channel       TEXT NOT NULL,
  arch          TEXT NOT NULL,
  PRIMARY KEY (id, first_at_to)
);
CREATE INDEX fleet_updates_by_time ON fleet_updates (first_at_to);

-- Counts every replica adds to at each flush (polls without an id, with a malformed one, over the cap),
-- and the fleet's own values (the key of --fleet-hash-ids, kept so every replica hashes alike).
CREATE TABLE fleet_counters (
  name   TEXT PRIMARY KEY,
  value  BIGINT NOT NULL
);
CREATE TABLE fleet_settings (
  name   TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);
