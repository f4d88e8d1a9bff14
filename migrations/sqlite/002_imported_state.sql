-- What each entity looked like in the last imported tree. A later import applies only what the tree
-- changed since then, so changes made through the admin API to everything else stay in place.
CREATE TABLE imported_state (
  kind     TEXT NOT NULL CHECK (kind IN ('release', 'channel', 'blocked_edge', 'raw_metadata')),
  key      TEXT NOT NULL,
  content  TEXT NOT NULL,
  PRIMARY KEY (kind, key)
) WITHOUT ROWID;
