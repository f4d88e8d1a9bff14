-- Phased rollouts (POST /api/v1/rollouts): the edges into `to_version` in `channel` reach the channel's
-- clusters one by one from `start_at` over `duration_ms` (src/graph/rollouts.ts). The newest rollout of
-- a channel and target governs its edges. Times are milliseconds since 1970.
CREATE TABLE rollouts (
  id            TEXT PRIMARY KEY,
  channel       TEXT NOT NULL,
  to_version    TEXT NOT NULL,
  from_regex    TEXT,              -- NULL: every source
  start_at      BIGINT NOT NULL,
  duration      TEXT NOT NULL,     -- as given (ISO 8601)
  duration_ms   BIGINT NOT NULL,
  canaries      TEXT NOT NULL,     -- JSON array of cluster ids
  halt_failures INTEGER,           -- NULL: that bound is off
  halt_fraction DOUBLE PRECISION,
  state         TEXT NOT NULL,     -- active, halted, cancelled
  reason        TEXT,
  state_at      BIGINT,
  halt_counts   TEXT,              -- JSON: the counts that halted it (src/graph/rollouts.ts: RolloutCounts)
  url           TEXT NOT NULL,
  created_at    BIGINT NOT NULL,
  created_by    TEXT NOT NULL
);
CREATE INDEX rollouts_by_target ON rollouts (channel, to_version, created_at);
