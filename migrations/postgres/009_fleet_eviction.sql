-- At the cap on clusters, the least recently seen make room for new ones (src/store/fleet.ts): found by
-- the time of their last poll. (A cluster's newest updates are found by fleet_updates' primary key.)
CREATE INDEX fleet_clusters_by_last_seen ON fleet_clusters (last_seen);
