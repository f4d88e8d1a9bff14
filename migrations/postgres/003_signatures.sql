-- Verified signatures of release payloads, by digest, numbered from 1 as the signature store
-- serves them. Rows are only ever added: a stored signature is never rewritten nor removed, so a
-- number, once served as immutable, never names other bytes.
CREATE TABLE signatures (
  digest      TEXT COLLATE "C" NOT NULL,   -- sha256:<hex>
  n           INTEGER NOT NULL,
  envelope    TEXT NOT NULL CHECK (envelope IN ('jws', 'openpgp')),
  key_id      TEXT NOT NULL,
  bytes       BYTEA NOT NULL,
  sha256      TEXT NOT NULL,               -- of the bytes: the same signature is stored once
  verified_at TEXT NOT NULL,
  PRIMARY KEY (digest, n),
  UNIQUE (digest, sha256)
);

CREATE FUNCTION signatures_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'stored signatures are never removed';
  END IF;
  RAISE EXCEPTION 'stored signatures are never rewritten';
END;
$$;

CREATE TRIGGER signatures_never_changed BEFORE UPDATE OR DELETE ON signatures
  FOR EACH ROW EXECUTE FUNCTION signatures_are_kept();
