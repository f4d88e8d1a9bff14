-- At the cap on clusters, new ones take the place of clusters not seen since their batch began, in
-- three tiers, each least recently seen first (src/store/fleet.ts: evict): those that polled once (as
-- ids made up for a flood do), those on probation (seen over less than ten minutes), then the rest.
-- The tiers' conditions are written here as the queries write them, so the partial indexes serve them.
CREATE INDEX fleet_clusters_by_last_seen ON fleet_clusters (last_seen);
CREATE INDEX fleet_clusters_polled_once ON fleet_clusters (last_seen) WHERE polls = 1;
CREATE INDEX fleet_clusters_on_probation ON fleet_clusters (last_seen) WHERE polls > 1 AND last_seen - first_seen < 600000;
-- A version change that cannot be an update (to or from a version the graph lacks, across arches, a
-- downgrade, or from a version reached so) is kept as an observation, marked, and left out of the
-- updates' counts and times.
ALTER TABLE fleet_updates ADD COLUMN suspicious SMALLINT NOT NULL DEFAULT 0;
