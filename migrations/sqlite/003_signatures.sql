-- Verified signatures of release payloads, by digest, numbered from 1 as the signature store
-- serves them. Rows are only ever added: a stored signature is never rewritten.
CREATE TABLE signatures (
  digest      TEXT NOT NULL,          -- sha256:<hex>
  n           INTEGER NOT NULL,
  envelope    TEXT NOT NULL CHECK (envelope IN ('jws', 'openpgp')),
  key_id      TEXT NOT NULL,
  bytes       BLOB NOT NULL,
  sha256      TEXT NOT NULL,          -- of the bytes: the same signature is stored once
  verified_at TEXT NOT NULL,
  PRIMARY KEY (digest, n),
  UNIQUE (digest, sha256)
) WITHOUT ROWID;

CREATE TRIGGER signatures_never_rewritten BEFORE UPDATE ON signatures
BEGIN
  SELECT RAISE(ABORT, 'stored signatures are never rewritten');
END;

-- Nor removed: a number, once served as immutable, never names other bytes.
CREATE TRIGGER signatures_never_removed BEFORE DELETE ON signatures
BEGIN
  SELECT RAISE(ABORT, 'stored signatures are never removed');
END;
