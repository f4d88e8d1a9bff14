-- Graph history: every change to the served graph, per channel and arch, as the history recorder
-- (app/changes/recorder.ts) found it between two recorded states of the graph.
CREATE TABLE graph_changes (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  at        TEXT NOT NULL,              -- ISO 8601
  kind      TEXT NOT NULL,
  channel   TEXT,
  arch      TEXT,
  from_version TEXT,
  to_version   TEXT,
  version   TEXT,
  risk      TEXT,
  cause     TEXT,
  actor     TEXT,
  detail    TEXT                        -- JSON, or NULL
);
CREATE INDEX graph_changes_by_view ON graph_changes (channel, arch, id);
CREATE INDEX graph_changes_by_at ON graph_changes (at);

-- The state of each (channel, arch) view the last recorded changes led to: what the next state is
-- compared with, after a restart and on every replica.
CREATE TABLE graph_history_views (
  channel   TEXT NOT NULL,
  arch      TEXT NOT NULL,
  state     TEXT NOT NULL,              -- JSON (app/changes/viewState.ts)
  hash      TEXT NOT NULL,              -- of state: compared first, so unchanged views are not read back
  PRIMARY KEY (channel, arch)
) WITHOUT ROWID;

-- One row: the hash of every view's state together, and the marks of the snapshot recorded last: the
-- newest audit entry and the store's generation (PostgreSQL; 0 on SQLite) its build read saw.
CREATE TABLE graph_history_mark (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  state_hash  TEXT NOT NULL,
  audit_mark  INTEGER NOT NULL,
  store_mark  INTEGER NOT NULL,
  recorded_at TEXT NOT NULL
);
