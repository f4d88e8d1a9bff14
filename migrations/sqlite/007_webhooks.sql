-- Webhooks: the subscriptions admins made, and the outbox of deliveries owed to them. A change is
-- queued (one row per matching subscription) in the write transaction that records it, and the row
-- stays until its receiver acknowledged it or the service gave up on it. Times are milliseconds since 1970.
CREATE TABLE webhook_subscriptions (
  id          TEXT PRIMARY KEY,
  url         TEXT NOT NULL,
  kinds       TEXT NOT NULL,       -- JSON array of change kinds
  channel     TEXT,                -- NULL: every channel
  arch        TEXT,                -- NULL: every arch
  secret      TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  created_by  TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE webhook_outbox (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  subscription_id  TEXT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  event_id         TEXT NOT NULL,
  body             TEXT NOT NULL,  -- the JSON sent, byte for byte
  attempts         INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  next_attempt_at  INTEGER NOT NULL,
  last_error       TEXT,
  claimed_by       TEXT,
  claimed_until    INTEGER,
  delivered_at     INTEGER,
  failed_at        INTEGER          -- given up on: kept, and shown
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE INDEX webhook_outbox_by_subscription ON webhook_outbox (subscription_id);
