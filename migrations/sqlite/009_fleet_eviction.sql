-- At the cap on clusters, new ones take the place of clusters on probation (seen over less than ten
-- minutes, as ids that poll once are), then of the least recently seen (src/store/fleet.ts: evict).
-- The probation condition is written here as the queries write it, so the partial index serves them.
CREATE INDEX fleet_clusters_by_last_seen ON fleet_clusters (last_seen);
CREATE INDEX fleet_clusters_on_probation ON fleet_clusters (last_seen) WHERE last_seen - first_seen < 600000;
-- A version change that cannot be an update (to or from a version the graph lacks, across arches, a
-- downgrade, or from a version reached so) is kept as an observation, marked, and left out of the
-- updates' counts and times.
ALTER TABLE fleet_updates ADD COLUMN suspicious SMALLINT NOT NULL DEFAULT 0;
