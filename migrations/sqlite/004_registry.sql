-- What the registry scraper learnt of each manifest it read, by digest. A manifest's content never
-- changes, so a rescan or a restart reads no blob of a manifest seen before.
CREATE TABLE registry_manifests (
  digest     TEXT PRIMARY KEY,      -- sha256:<hex>
  kind       TEXT NOT NULL CHECK (kind IN ('release', 'index', 'other')),
  arch       TEXT,                  -- of a release image, or of an index: 'multi' (or its one member's)
  metadata   TEXT,                  -- the release-metadata document (JSON) of a release or an index
  members    TEXT,                  -- the member manifests' digests (JSON list) of an index
  reason     TEXT,                  -- why an 'other' manifest is not a release image
  scanned_at TEXT NOT NULL
) WITHOUT ROWID;

-- The releases each scraped repository brought, so a later scrape removes those whose tags are gone
-- and leaves releases of other sources alone.
CREATE TABLE scraped_releases (
  repository TEXT NOT NULL,         -- host[:port]/repository
  arch       TEXT NOT NULL,
  version    TEXT NOT NULL,
  PRIMARY KEY (repository, arch, version)
) WITHOUT ROWID;

-- The manifest each tag of a scraped repository pointed at when last read: a rescan reads the tag list
-- and only the manifests of tags it has not seen (a full check of every tag runs now and then).
CREATE TABLE registry_tags (
  repository TEXT NOT NULL,         -- host[:port]/repository
  tag        TEXT NOT NULL,
  digest     TEXT NOT NULL,
  PRIMARY KEY (repository, tag)
) WITHOUT ROWID;
