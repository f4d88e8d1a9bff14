-- The store's generation: one more with every write transaction that changed a row. Replicas learn
-- of a write from the notification it sends on commit, and compare this number now and then in case
-- a notification was lost (a replica reconnecting, say).
CREATE TABLE store_generation (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  generation  BIGINT NOT NULL
);
INSERT INTO store_generation (id, generation) VALUES (1, 0);
