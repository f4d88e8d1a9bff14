-- The store's served generation: one more with every write transaction that changed what is served (a
-- release, a channel, a risk, an import; not a background write such as a poll flush or a webhook's
-- delivery state). Another connection to the file sees its data version move on any commit; it reads
-- this number to tell a write it must rebuild for from one it may ignore.
CREATE TABLE store_generation (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  generation  INTEGER NOT NULL
);
INSERT INTO store_generation (id, generation) VALUES (1, 0);
