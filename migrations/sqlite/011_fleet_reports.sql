-- What clusters report (POST /api/v1/fleet/reports, with a token bound to the cluster): the summary of
-- each one's last report, and the updates its ClusterVersion history shows. Ids are stored as
-- fleet_clusters stores them (the keyed hash with --fleet-hash-ids). Times are milliseconds since 1970.
CREATE TABLE fleet_reports (
  id           TEXT PRIMARY KEY,
  reported_at  INTEGER NOT NULL,
  summary      TEXT NOT NULL       -- JSON: channel, version, conditions, operators (src/app/fleet/reportedState.ts)
) WITHOUT ROWID;
CREATE INDEX fleet_reports_by_time ON fleet_reports (reported_at);

-- Each update of a reporting cluster, from its history: those of its last report (UPDATES_PER_CLUSTER at
-- most), in its history's order, replaced at each report. Its
-- duration is the cluster's to tell (completed_at - started_at, one clock); how long it has gone on, and
-- whether it falls in a span asked for, is this service's (seen_at), so a cluster's skewed clock moves neither.
CREATE TABLE fleet_outcomes (
  id             TEXT NOT NULL,
  position       INTEGER NOT NULL,  -- 0: the newest of the cluster's last report (its history's order)
  started_at     INTEGER NOT NULL,       -- the history's startedTime: the cluster's clock
  seen_at        INTEGER NOT NULL,       -- when this service first heard of it: its own clock
  from_version   TEXT NOT NULL,
  to_version     TEXT NOT NULL,
  completed_at   INTEGER,                -- the history's completionTime (the cluster's clock); NULL: not Completed
  failing_since  INTEGER,          -- the cluster says Failing=True about it, or left it (Superseded)
  failing_reason TEXT,
  PRIMARY KEY (id, started_at)
) WITHOUT ROWID;
CREATE INDEX fleet_outcomes_by_time ON fleet_outcomes (seen_at);
